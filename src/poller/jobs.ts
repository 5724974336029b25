/**
 * The collector jobs, listed explicitly. A job's name is its config section
 * (`summary`, `measurements`, `units`) and its `collector` label.
 */
import type { CollectorJob, JobDeps } from '../collectors/collector.ts';
import { createMeasurementsJob } from '../collectors/measurements/job.ts';
import { createSummaryJob } from '../collectors/summary/job.ts';
import { createUnitsJob } from '../collectors/units/job.ts';

/** The enabled collector jobs, in a fixed order. */
export function createJobs(deps: JobDeps): CollectorJob[] {
  const jobs: CollectorJob[] = [];
  if (deps.config.summary.enabled) jobs.push(createSummaryJob(deps));
  if (deps.config.measurements.enabled) jobs.push(createMeasurementsJob(deps));
  if (deps.config.units.enabled) jobs.push(createUnitsJob(deps));
  return jobs;
}
