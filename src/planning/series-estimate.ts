/** The series a config exports for given plant counts (`check-config`): an upper bound, with the drops. */
import type { Collector } from '../collectors/collector.ts';
import { COLLECTORS } from '../collectors/index.ts';
import type { Config } from '../config/schema.ts';
import type { PlantCounts, SeriesRow } from '../model/plan.ts';
import { familiesOver, seriesDropOrder } from './series-budget.ts';

/** The plant as counted for one replica. */
export type SeriesCounts = PlantCounts;

/** The estimate, with what `planning.max_series` would drop. */
export interface SeriesEstimate {
  readonly rows: readonly SeriesRow[];
  readonly total: number;
  /** Families the limit drops, in order, with their series. */
  readonly dropped: readonly SeriesRow[];
}

/** Estimates the series of every enabled collector of `collectors`. */
export function estimateSeries(
  config: Config,
  counts: SeriesCounts,
  collectors: readonly Collector[] = COLLECTORS,
): SeriesEstimate {
  const rows = collectors.flatMap((c) => (c.enabled(config) ? c.costs.series(config, counts) : []));
  const total = rows.reduce((sum, r) => sum + r.series, 0);
  const max = config.planning.maxSeries;
  // A family's first row that has series is the one dropped.
  const byFamily = new Map(
    rows
      .filter((r) => r.series > 0)
      .toReversed()
      .map((r) => [r.family, r]),
  );
  const series = new Map([...byFamily].map(([family, r]) => [family, r.series]));
  const drops = max === undefined ? [] : [...familiesOver(series, seriesDropOrder(collectors), max).keys()];
  return { rows, total, dropped: drops.flatMap((family) => byFamily.get(family) ?? []) };
}

/** The estimate as text for check-config. */
export function renderSeries(estimate: SeriesEstimate, maxSeries: number | undefined): string {
  const width = Math.max(...estimate.rows.map((r) => r.family.length));
  const lines = ['Series estimate (upper bound):', ''];
  // Each collector once, in order of first appearance, with all of its rows under it.
  for (const collector of new Set(estimate.rows.map((r) => r.collector))) {
    const rows = estimate.rows.filter((r) => r.collector === collector);
    lines.push(`  ${collector}: ${rows.reduce((s, r) => s + r.series, 0)}`);
    for (const r of rows) lines.push(`    ${r.family.padEnd(width)}  ${String(r.series).padStart(9)}`);
  }
  lines.push(
    '',
    `Total: ${estimate.total} series${maxSeries === undefined ? '' : ` (planning.max_series ${maxSeries})`}.`,
  );
  if (estimate.dropped.length > 0) {
    const left = estimate.total - estimate.dropped.reduce((s, r) => s + r.series, 0);
    lines.push(`Over max_series: these whole families are left out, in this order (${left} series remain):`);
    for (const r of estimate.dropped) lines.push(`  - ${r.family}: ${r.series}`);
  }
  return lines.join('\n');
}
