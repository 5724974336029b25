/**
 * The one list of collectors, in exposition order (no registration by import side effect); the
 * runtime, the metrics reference and check-config read it.
 */
import type { Config } from '../config/schema.ts';
import type { Collector, DataCollector } from './collector.ts';
import { measurementsCollector } from './measurements/index.ts';
import { summaryCollector } from './summary/index.ts';
import { targetsCollector } from './targets/index.ts';
import { topologyCollector } from './topology/index.ts';
import { unitsCollector } from './units/index.ts';

/** The discovery collector: it runs first, and its topology feeds the others. */
export const DISCOVERY = topologyCollector;

/** Every collector, discovery first. */
export const COLLECTORS: readonly Collector[] = [
  topologyCollector,
  summaryCollector,
  measurementsCollector,
  unitsCollector,
  targetsCollector,
];

/** The data collectors a config enables, in list order. */
export function enabledDataCollectors(config: Config): DataCollector[] {
  return COLLECTORS.filter((c): c is DataCollector => c.kind === 'data' && c.enabled(config));
}

/** One line for `check-config`: every collector of the list, its interval or that it is off. */
export function describeCollectors(config: Config, formatDuration: (ms: number) => string): string {
  const parts = COLLECTORS.map((c) =>
    c.enabled(config) ? `${c.name} every ${formatDuration(c.intervalMs(config))}` : `${c.name} off`,
  );
  return `collectors: ${parts.join(', ')}`;
}
