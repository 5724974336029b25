/** Public API of the Station Data Query Service simulator. */
export { createSimulator, type Simulator } from './create.ts';
export { LARGE_BODY_BYTES } from './faults.ts';

export type * from './process-events.ts';
export { type RunningSimulator, startSimulatorServer } from './server.ts';
export type * from './types.ts';
