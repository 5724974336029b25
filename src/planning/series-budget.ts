/**
 * The series budget (`planning.max_series`): past it, whole families are left out of /metrics,
 * lowest priority first, so that one target never outgrows what Prometheus will take. A family is
 * kept or dropped whole, never truncated, and the exporter never refuses to start over it.
 *
 * DROP ORDER (lowest priority first): the measurement extremes, non-numeric counts and spec limits
 * (context a dashboard can do without), the measurement statistics from the least to the most used
 * by the shipped alerts and dashboards, the per-station unit counts, and then the station-level and
 * group-level summaries. Line and site summaries, `station_info`, the measurement info series and
 * the last unit time are never dropped: they are few, and the alerts need them.
 */
import type { Family } from '../exposition/model.ts';

/** Families in the order they are dropped. */
export const SERIES_DROP_ORDER: readonly string[] = [
  'station_measurement_window_capability_omitted_series',
  'station_measurement_future_records_total',
  'station_measurement_late_records_total',
  'station_measurement_window_pp',
  'station_measurement_window_cp',
  'station_measurement_window_cpk',
  'station_measurement_window_min',
  'station_measurement_window_max',
  'station_measurement_window_non_numeric_samples',
  'station_measurement_upper_limit',
  'station_measurement_lower_limit',
  'station_measurement_last_timestamp_seconds',
  'station_measurement_window_stddev',
  'station_measurement_window_mean',
  'station_measurement_window_out_of_spec_samples',
  'station_measurement_window_ppk',
  'station_measurement_window_attribute_samples',
  'station_measurement_window_samples',
  'station_measurement_last_value',
  'station_unit_serials',
  'station_unit_records',
  ...summaryFamilies('station_group_'),
  ...summaryFamilies('station_'),
];

function summaryFamilies(prefix: string): string[] {
  return [
    'retry_ratio',
    'unique_input_units',
    'unique_output_units',
    'input_units',
    'output_units',
    'unique_units',
    'final_pass_units',
    'first_pass_units',
    'final_yield_ratio',
    'first_pass_yield_ratio',
  ].map((s) => prefix + s);
}

/** Series counts of every published part, and what the limit drops. */
export class SeriesBudget {
  private readonly counts = new Map<string, ReadonlyMap<string, number>>();
  private dropped: ReadonlyMap<string, number> = new Map();

  constructor(private readonly maxSeries: number | undefined) {}

  /**
   * The families of `part` that fit, given the other parts' last counts. Other parts are filtered
   * the same way on their next publish.
   */
  filter(part: string, families: readonly Family[]): readonly Family[] {
    if (this.maxSeries === undefined) return families;
    const own = new Map<string, number>();
    for (const f of families) own.set(f.desc.name, (own.get(f.desc.name) ?? 0) + f.samples.length);
    this.counts.set(part, own);
    this.dropped = this.decide(this.maxSeries);
    return families.filter((f) => !this.dropped.has(f.desc.name));
  }

  /** Series dropped per family name. */
  droppedFamilies(): ReadonlyMap<string, number> {
    return this.dropped;
  }

  private decide(max: number): Map<string, number> {
    const byFamily = new Map<string, number>();
    for (const part of this.counts.values()) {
      for (const [name, n] of part) byFamily.set(name, (byFamily.get(name) ?? 0) + n);
    }
    let total = 0;
    for (const n of byFamily.values()) total += n;
    const out = new Map<string, number>();
    for (const name of SERIES_DROP_ORDER) {
      if (total <= max) break;
      const n = byFamily.get(name) ?? 0;
      if (n === 0) continue;
      out.set(name, n);
      total -= n;
    }
    return out;
  }
}
