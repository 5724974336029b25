/**
 * The standard process and runtime metrics every Prometheus exporter has: `process_*` (CPU
 * seconds, resident and virtual memory, open and maximum file descriptors, start time) and
 * the Node runtime's `nodejs_*` (event loop lag, heap, GC, active handles, version), which the
 * usual process and Node.js dashboards read. The client library's default collectors provide them;
 * each is read from /proc or the V8 API at scrape time, so they cost nothing between scrapes.
 */
import { collectDefaultMetrics, type Registry } from './client.ts';

/**
 * Default collectors' families the exporter does not serve. Three gauges named with `_total`,
 * which Prometheus reserves for counters (`promtool check metrics` rejects them); their per-type
 * breakdowns (`nodejs_active_handles` and the like, by `type`) stay and sum to the same numbers.
 * And `nodejs_eventloop_utilization_histogram`, new in @prometheus-io/client: a histogram named
 * with its own type, which promtool's lint also rejects, and a family the exporter never had
 * (test/exposition/self-families.e2e.test.ts pins the set).
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
