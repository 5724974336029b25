/**
 * What the measurements collector costs: series (an upper bound: every station measures every
 * name), requests, and drops from the least to the most used by the shipped alerts and dashboards.
 */
import { productValues } from '../../config/products-schema.ts';
import type { Config } from '../../config/schema.ts';
import type { CollectorCosts, DropRank, SeriesRow } from '../../model/plan.ts';
import { requestUrl } from '../../upstream/endpoints.ts';
import { recordsRequests } from '../records-cost.ts';
import { chartedNames, controlSeriesByFamily } from './control-families.ts';
import { MEASUREMENT_FAMILIES, OMISSION_ROWS_PER_WINDOW } from './families.ts';
import { VALUE_HISTOGRAM } from './histograms.ts';
import { windowsPerFamily } from './selection.ts';

function emptyListUrl(config: Config, now: Date): string {
  const window = { from: now, to: now, stationIds: [] as string[] };
  const names = config.measurements.names.map((n) => n.name);
  return requestUrl(config.upstream.baseUrl, 'metrics', { ...window, names });
}

/** Per station and slot: one per charted name, or per product value for a name charted `by_product`. */
function chartsPerStation(config: Config): number {
  const { names } = config.measurements.control;
  const products = productValues(config.products);
  return chartedNames(config).reduce((n, name) => {
    const entry = names.find((e) => e.pattern.test(name));
    return n + (entry?.byProduct === true ? products : 1);
  }, 0);
}

/** Lowest priority first; the first family the series budget drops of all collectors. */
const DROPS: readonly string[] = [
  'station_measurement_window_capability_omitted_series',
  'station_measurement_window_anderson_darling',
  'station_measurement_window_anderson_darling_p_value',
  'station_measurement_window_box_cox_lambda',
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
  'station_measurement_window_ppk_upper_bound',
  'station_measurement_window_ppk_lower_bound',
  'station_measurement_window_ppk',
  'station_measurement_window_attribute_samples',
  'station_measurement_window_samples',
  'station_measurement_last_value',
];

/**
 * Lowest priority first, after the value histogram and before every statistic (5,000 charts are
 * a plant's most series); the event counters, which the alerts read, last.
 */
const CONTROL_DROPS: readonly string[] = [
  'station_measurement_control_last_violation_timestamp_seconds',
  'station_measurement_control_limits_exclusion_timestamp_seconds',
  'station_measurement_control_limits_approved_timestamp_seconds',
  'station_measurement_control_window_violations',
  'station_measurement_control_late_points_total',
  'station_measurement_control_ewma_half_width',
  'station_measurement_control_ewma',
  'station_measurement_control_ewma_limit_sigmas',
  'station_measurement_control_ewma_lambda',
  'station_measurement_control_cusum_reference_value',
  'station_measurement_control_cusum_decision_interval',
  'station_measurement_control_cusum_lower',
  'station_measurement_control_cusum_upper',
  'station_measurement_control_baseline_flag',
  'station_measurement_control_limits_info',
  'station_measurement_control_lcl',
  'station_measurement_control_ucl',
  'station_measurement_control_center',
  'station_measurement_control_state',
  'station_measurement_control_violations_total',
];

/**
 * One per station, name and slot for the first max_names names (buckets cost protobuf bytes, not
 * series); undefined when no name has one.
 */
function histogramSeries(
  config: Config,
  counts: { readonly stations: number; readonly names: number; readonly slots?: number },
): number | undefined {
  const h = config.measurements.histograms;
  if (!h.enabled || h.maxNames === 0) return undefined;
  const configured = config.measurements.names.length;
  const withHistogram = Math.round(Math.min(configured, h.maxNames) * (counts.names / configured));
  return counts.stations * withHistogram * (counts.slots ?? 1);
}

/** Families only some capability methods export. */
function methodShares(
  config: Config,
  series: number,
  perFamily: ReadonlyMap<string, ReadonlySet<string>>,
): Array<[string, number]> {
  const names = config.measurements.names;
  const share = (keep: (method: string) => boolean) =>
    names.length === 0 ? 0 : names.filter((n) => keep(n.capabilityMethod)).length / names.length;
  const windows = (family: string) => perFamily.get(family)?.size ?? 0;
  const { ppkLower, ppkUpper, boxCoxLambda } = MEASUREMENT_FAMILIES;
  const bounded = share((m) => m !== 'normal');
  return [
    [ppkLower.name, Math.round(series * bounded) * windows(ppkLower.name)],
    [ppkUpper.name, Math.round(series * bounded) * windows(ppkUpper.name)],
    [boxCoxLambda.name, Math.round(series * share((m) => m === 'box-cox')) * windows(boxCoxLambda.name)],
  ];
}

export const measurementsCosts: CollectorCosts = {
  series(config, counts) {
    const rows: SeriesRow[] = [];
    const add = (family: string, series: number) => rows.push({ collector: 'measurements', family, series });
    const windows = config.windows.map((w) => w.name);
    const names = counts.names ?? config.measurements.names.length;
    const series = counts.stations * names * (counts.slots ?? 1);
    const perFamily = windowsPerFamily(config.measurements, windows);
    // Per-station families; attribute counts replace the numeric statistics of pass/fail names, so
    // counting every name as numeric is the upper bound.
    const perStation = new Map<string, number>([
      [MEASUREMENT_FAMILIES.info.name, counts.stations * names],
      [
        MEASUREMENT_FAMILIES.omitted.name,
        counts.stations *
          OMISSION_ROWS_PER_WINDOW *
          (perFamily.get(MEASUREMENT_FAMILIES.omitted.name)?.size ?? 0),
      ],
      [MEASUREMENT_FAMILIES.future.name, counts.stations],
      [MEASUREMENT_FAMILIES.late.name, counts.stations],
      [MEASUREMENT_FAMILIES.attributes.name, 0],
      [MEASUREMENT_FAMILIES.capabilityInfo.name, config.measurements.names.length],
      ...methodShares(config, series, perFamily),
    ]);
    for (const d of Object.values(MEASUREMENT_FAMILIES)) {
      const windowed = perFamily.get(d.name);
      add(d.name, perStation.get(d.name) ?? series * (windowed?.size ?? 1));
    }
    const histograms = histogramSeries(config, { ...counts, names });
    if (histograms !== undefined) add(VALUE_HISTOGRAM.name, histograms);
    if (config.measurements.control.names.length > 0) {
      const charted = chartedNames(config).length;
      const share = (counts.names ?? config.measurements.names.length) / config.measurements.names.length;
      const chartedSeries =
        counts.stations * Math.round(chartsPerStation(config) * share) * (counts.slots ?? 1);
      // Family by family, so that the estimate drops them as the series budget does at run time.
      const { perChart, perName } = controlSeriesByFamily(config);
      for (const [family, n] of perChart) add(family, chartedSeries * n);
      for (const [family, n] of perName) add(family, charted * n);
    }
    return rows;
  },
  requests: recordsRequests('measurements', emptyListUrl),
  // The histogram goes first: the most series for the fewest alerts (none read it).
  drops: [
    { family: VALUE_HISTOGRAM.name, priority: 5 },
    ...CONTROL_DROPS.map((family, i): DropRank => ({ family, priority: 6 + i / 100 })),
    ...DROPS.map((family, i): DropRank => ({ family, priority: 10 * (i + 1) })),
  ],
};
