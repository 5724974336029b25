import type { PlantModel } from './plant.ts';
import type { RecordedRequest, Scenario, TokenScope } from './types.ts';

/** Mutable state shared by the routes of one simulator. */
export interface SimState {
  seed: number;
  now: () => number;
  model: PlantModel;
  tokens: Record<string, TokenScope>;
  scenario: Scenario;
  requests: RecordedRequest[];
  /** Number of API requests seen, the counter behind the seeded fault sequence. */
  faultCounter: number;
  yieldScale: 'ratio' | 'percent';
  maxRecords: number | undefined;
}
