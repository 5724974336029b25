/** The units collector: unit records by direction and result, serials, and the last unit time. */
import type { DataCollector } from '../collector.ts';
import { unitsCosts } from './costs.ts';
import { UNIT_CUSUM_FAMILIES } from './cusum-families.ts';
import { UNIT_FAMILIES } from './families.ts';
import { UnitsJob, type UnitsNeeds } from './job.ts';

export const unitsCollector: DataCollector<UnitsNeeds> = {
  kind: 'data',
  name: 'units',
  families: [...Object.values(UNIT_FAMILIES), ...Object.values(UNIT_CUSUM_FAMILIES)],
  enabled: (config) => config.units.enabled,
  intervalMs: (config) => config.units.intervalMs,
  maxStalenessMs: (config) => config.units.maxStalenessMs,
  createJob: (ctx) => new UnitsJob(ctx),
  costs: unitsCosts,
};
