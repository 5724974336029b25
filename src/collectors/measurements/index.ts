/** The measurements collector: latest values, limits and per-window statistics per measurement. */
import type { DataCollector } from '../collector.ts';
import { CONTROL_FAMILIES } from './control-families.ts';
import { measurementsCosts } from './costs.ts';
import { MEASUREMENT_FAMILIES } from './families.ts';
import { VALUE_HISTOGRAM } from './histograms.ts';
import { MeasurementsJob, type MeasurementsNeeds } from './job.ts';

export const measurementsCollector: DataCollector<MeasurementsNeeds> = {
  kind: 'data',
  name: 'measurements',
  families: [...Object.values(MEASUREMENT_FAMILIES), VALUE_HISTOGRAM, ...CONTROL_FAMILIES],
  enabled: (config) => config.measurements.enabled,
  intervalMs: (config) => config.measurements.intervalMs,
  maxStalenessMs: (config) => config.measurements.maxStalenessMs,
  createJob: (ctx) => new MeasurementsJob(ctx),
  costs: measurementsCosts,
};
