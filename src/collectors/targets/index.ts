/** The targets collector: configured yield and retry targets per line and station. */
import type { DataCollector } from '../collector.ts';
import { targetsCosts } from './costs.ts';
import { TARGET_DESCS } from './families.ts';
import { TargetsJob, type TargetsNeeds } from './job.ts';

export const targetsCollector: DataCollector<TargetsNeeds> = {
  kind: 'data',
  name: 'targets',
  families: TARGET_DESCS,
  enabled: (config) => config.targets.enabled,
  intervalMs: (config) => config.targets.intervalMs,
  createJob: (ctx) => new TargetsJob(ctx),
  costs: targetsCosts,
};
