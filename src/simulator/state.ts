import type { YieldDrop } from './process-events.ts';
import type { DataSource } from './source.ts';
import type { RecordedRequest, Scenario, TokenScope } from './types.ts';

/** Mutable state shared by the routes of one simulator. */
export interface SimState {
  seed: number;
  now: () => number;
  /** The synthetic plant, or recorded data. */
  source: DataSource;
  tokens: Record<string, TokenScope>;
  /** When set, HS256 JWTs signed with it are accepted too. */
  jwtSecret: string | undefined;
  scenario: Scenario;
  /** Yield drops of the process scenario, fixed at creation (the run-time one is `scenario.yieldDrop`). */
  processDrops: readonly YieldDrop[];
  requests: RecordedRequest[];
  /** Number of API requests seen, the counter behind the seeded fault sequence. */
  faultCounter: number;
  yieldScale: 'ratio' | 'percent';
  maxRecords: number | undefined;
}
