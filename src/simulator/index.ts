/** Public API of the Station Data Query Service simulator. */
export { createSimulator, type Simulator } from './create.ts';
export { DEFAULT_SCENARIO, HANG_CAP_MS, LARGE_BODY_BYTES } from './faults.ts';
export { DEFAULT_SCALE } from './plant.ts';
export type * from './process-events.ts';
export { type RunningSimulator, type SimulatorServerOptions, startSimulatorServer } from './server.ts';
export type * from './types.ts';
