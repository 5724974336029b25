/**
 * The Prometheus client library, imported in this one place; self-families.e2e.test.ts pins the
 * families it produces, so that a change of library shows up there.
 */
import { Counter, Gauge, type Registry } from '@prometheus-io/client';

export { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from '@prometheus-io/client';

/** Makers of the exporter's own gauges and counters, named after the `station_exporter_` prefix. */
export function selfMetricMakers(registers: Registry[]) {
  return {
    gauge: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Gauge<L>({ name: `station_exporter_${name}`, help, labelNames, registers }),
    counter: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name: `station_exporter_${name}`, help, labelNames, registers }),
  };
}
