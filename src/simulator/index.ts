/** Public API of the Station Data Query Service simulator. */
export { createSimulator, type Simulator } from './create.ts';
export { LARGE_BODY_BYTES } from './faults.ts';
export type { LineStop, StopKinds } from './line-stops.ts';
export type * from './process-events.ts';
export { productOffset, REALISTIC_BEHAVIOUR, type RealisticBehaviour } from './realistic.ts';
export type { RealisticDesign, RealisticLineDesign } from './realistic-design.ts';
export {
  FINAL_YIELD_BAND,
  FINAL_YIELD_TARGET,
  type ProductMix,
  RETRY_RATIO_RANGE,
  type RealisticRates,
} from './realistic-line.ts';
export { type RunningSimulator, startSimulatorServer } from './server.ts';
// The noise shapes the realistic plant draws; the benches draw the same ones.
export { Ar1, ar1At, type Shape, shapeSkewness, standardDraw, type Variates } from './shapes.ts';
export type * from './types.ts';
