/** The summary collector: the upstream's station summary per level entity and window. */

import { SUMMARY_LEVELS } from '../../config/schema.ts';
import type { DataCollector } from '../collector.ts';
import { summaryCosts } from './costs.ts';
import { coverageDescs, summaryDescs } from './families.ts';
import { SummaryJob, type SummaryNeeds } from './job.ts';

export const summaryCollector: DataCollector<SummaryNeeds> = {
  kind: 'data',
  name: 'summary',
  families: SUMMARY_LEVELS.flatMap((level) => [...summaryDescs(level), ...coverageDescs(level)]),
  enabled: (config) => config.summary.enabled,
  intervalMs: (config) => config.summary.intervalMs,
  maxStalenessMs: (config) => config.summary.maxStalenessMs,
  createJob: (ctx) => new SummaryJob(ctx),
  costs: summaryCosts,
};
