/**
 * The standard process and runtime metrics every Prometheus exporter has: `process_*` (CPU
 * seconds, resident and virtual memory, open and maximum file descriptors, start time) and
 * the Node runtime's `nodejs_*` (event loop lag, heap, GC, active handles, version), which the
 * usual process and Node.js dashboards read. prom-client's default collectors provide them;
 * each is read from /proc or the V8 API at scrape time, so they cost nothing between scrapes.
 */
import { collectDefaultMetrics, type Registry } from './client.ts';

/**
 * Gauges that prom-client names with `_total`, which Prometheus reserves for counters
 * (`promtool check metrics` rejects them). Their per-type breakdowns (`nodejs_active_handles`
 * and the like, by `type`) stay and sum to the same numbers.
 */
const MISNAMED = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Registers the process and runtime metrics on `registry` (once per registry). */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
}
