/**
 * The series a config exports for a plant of given counts, per collector and family, before it
 * runs (`check-config`). An upper bound where the plant decides: every summary field is counted,
 * every station measures every configured name, and a unit record kind (direction and result) is
 * counted as present in every window.
 */
import { chartedNames, controlSeriesPerSeries } from '../collectors/measurements/control-families.ts';
import { MEASUREMENT_FAMILIES } from '../collectors/measurements/families.ts';
import { windowsPerFamily } from '../collectors/measurements/selection.ts';
import { summaryDescs } from '../collectors/summary/families.ts';
import { TARGET_DESCS } from '../collectors/targets/families.ts';
import { STATION_INFO } from '../collectors/topology/families.ts';
import { UNIT_FAMILIES } from '../collectors/units/families.ts';
import type { Config } from '../config/schema.ts';
import type { Level } from '../model/topology.ts';
import { SERIES_DROP_ORDER } from './series-budget.ts';

/** The plant as counted for one replica. */
export interface SeriesCounts {
  readonly stations: number;
  readonly groups: number;
  readonly lines: number;
  readonly sites: number;
  /** Measurement names per station (default: every configured name). */
  readonly names?: number;
  /** Slots per station and name (default 1). */
  readonly slots?: number;
  /** Unit record kinds (direction, result) per station; default 3: input, output pass, output fail. */
  readonly unitKinds?: number;
}

/** One family's estimate. */
export interface SeriesRow {
  readonly collector: string;
  readonly family: string;
  readonly series: number;
}

/** The estimate, with what `planning.max_series` would drop. */
export interface SeriesEstimate {
  readonly rows: readonly SeriesRow[];
  readonly total: number;
  /** Families the limit drops, in order, with their series. */
  readonly dropped: readonly SeriesRow[];
}

/** Estimates the series of every enabled collector. */
export function estimateSeries(config: Config, counts: SeriesCounts): SeriesEstimate {
  const rows: SeriesRow[] = [];
  const windows = config.windows.map((w) => w.name);
  const add = (collector: string, family: string, series: number) => rows.push({ collector, family, series });
  add('topology', STATION_INFO.name, counts.stations);
  if (config.summary.enabled) {
    const entities: Record<Level, number> = {
      station: counts.stations,
      group: counts.groups,
      line: counts.lines,
      site: counts.sites,
    };
    for (const level of config.summary.levels) {
      for (const d of summaryDescs(level)) add('summary', d.name, entities[level] * windows.length);
    }
  }
  if (config.measurements.enabled) {
    const names = counts.names ?? config.measurements.names.length;
    const series = counts.stations * names * (counts.slots ?? 1);
    const perFamily = windowsPerFamily(config.measurements, windows);
    // Per-station families; attribute counts replace the numeric statistics of pass/fail names, so
    // counting every name as numeric is the upper bound.
    const perStation = new Map<string, number>([
      [MEASUREMENT_FAMILIES.info.name, counts.stations * names],
      [MEASUREMENT_FAMILIES.omitted.name, counts.stations * windows.length],
      [MEASUREMENT_FAMILIES.future.name, counts.stations],
      [MEASUREMENT_FAMILIES.late.name, counts.stations],
      [MEASUREMENT_FAMILIES.attributes.name, 0],
    ]);
    for (const d of Object.values(MEASUREMENT_FAMILIES)) {
      const windowed = perFamily.get(d.name);
      add('measurements', d.name, perStation.get(d.name) ?? series * (windowed?.size ?? 1));
    }
  }
  if (config.measurements.enabled && config.measurements.control.names.length > 0) {
    // Every charted name on every station and slot, all steady series plus both sparse ones per rule.
    const charted = chartedNames(config).length;
    const share = (counts.names ?? config.measurements.names.length) / config.measurements.names.length;
    const series = counts.stations * Math.round(charted * share) * (counts.slots ?? 1);
    add('measurements', 'station_measurement_control_*', series * controlSeriesPerSeries(config));
  }
  if (config.units.enabled) {
    const perWindow = counts.stations * windows.length;
    add('units', UNIT_FAMILIES.records.name, perWindow * (counts.unitKinds ?? 3));
    add('units', UNIT_FAMILIES.serials.name, perWindow);
    add('units', UNIT_FAMILIES.last.name, counts.stations);
    add('units', UNIT_FAMILIES.future.name, counts.stations);
    add('units', UNIT_FAMILIES.late.name, counts.stations);
  }
  if (config.targets.enabled) {
    for (const d of TARGET_DESCS) {
      add('targets', d.name, d.name.startsWith('station_line_') ? counts.lines : counts.stations);
    }
  }
  if (config.summary.enabled) {
    const entities: Partial<Record<Level, number>> = {
      group: counts.groups,
      line: counts.lines,
      site: counts.sites,
    };
    for (const level of config.summary.levels) {
      const n = entities[level];
      if (n !== undefined) add('summary', `station_${level}_stations, _covered_stations`, 2 * n);
    }
  }
  let total = rows.reduce((sum, r) => sum + r.series, 0);
  const dropped: SeriesRow[] = [];
  const max = config.planning.maxSeries;
  if (max !== undefined) {
    for (const family of SERIES_DROP_ORDER) {
      if (total <= max) break;
      const row = rows.find((r) => r.family === family && r.series > 0);
      if (row === undefined) continue;
      dropped.push(row);
      total -= row.series;
    }
  }
  return { rows, total: rows.reduce((sum, r) => sum + r.series, 0), dropped };
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
