/**
 * The standard `process_*` and `nodejs_*` metrics the usual dashboards read, from the client
 * library's default collectors, read at scrape time.
 */
import { collectDefaultMetrics, type Registry } from './client.ts';

/**
 * Families `promtool check metrics` rejects: gauges named `_total` (their per-type breakdowns stay
 * and sum to the same) and a histogram named with its own type.
 */
const LEFT_OUT = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
  'nodejs_eventloop_utilization_histogram',
];

/** Registers the process and runtime metrics on `registry` (once per registry). */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of LEFT_OUT) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
}
