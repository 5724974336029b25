/**
 * Measurements collector: per station, measurement name and slot, the latest value with its
 * spec limits, and per window the sample count, mean, extremes, standard deviation,
 * out-of-spec count and Ppk, computed from the records of the upstream GET /metrics.
 */
import type { Family, FamilyDesc, LabelSet, Sample } from '../../exposition/model.ts';
import type { LatestMeasurement, MeasurementWindowStats } from './stats.ts';

const STATION = ['site', 'line', 'station', 'station_id', 'group'];
const SERIES = [...STATION, 'metric', 'slot'];
const WINDOWED = [...SERIES, 'window'];
const SOURCE = 'from the upstream GET /metrics records';
const REFRESH = 'refreshed every measurements interval';

function gauge(name: string, labels: readonly string[], help: string, unit?: string): FamilyDesc {
  return { name, kind: 'gauge', labels, help, ...(unit ? { unit } : {}) };
}

function windowed(suffix: string, what: string): FamilyDesc {
  return gauge(
    `station_measurement_window_${suffix}`,
    WINDOWED,
    `${what} over the window, ${SOURCE} held in memory; ${REFRESH}.`,
  );
}

/** The measurement families, in exposition order. */
export const MEASUREMENT_FAMILIES = {
  info: {
    ...gauge(
      'station_measurement_info',
      [...STATION, 'metric', 'unit'],
      `Unit of measure of a measurement at the station (value always 1), ${SOURCE}; ${REFRESH}.`,
    ),
    kind: 'info',
  },
  lastValue: gauge(
    'station_measurement_last_value',
    SERIES,
    `Latest numeric value of the measurement, in its unit of measure (see station_measurement_info), ${SOURCE}; ${REFRESH}.`,
  ),
  lastTimestamp: gauge(
    'station_measurement_last_timestamp_seconds',
    SERIES,
    `Time (Unix seconds) the latest numeric value was measured, its time_created ${SOURCE}; ${REFRESH}.`,
    'seconds',
  ),
  upper: gauge(
    'station_measurement_upper_limit',
    SERIES,
    `Upper spec limit of the latest record, ${SOURCE}; absent when it has none; ${REFRESH}.`,
  ),
  lower: gauge(
    'station_measurement_lower_limit',
    SERIES,
    `Lower spec limit of the latest record, ${SOURCE}; absent when it has none; ${REFRESH}.`,
  ),
  samples: windowed('samples', 'Records with a numeric value'),
  nonNumeric: gauge(
    'station_measurement_non_numeric_samples',
    WINDOWED,
    `Records whose value is not a number (PASS, empty) over the window, left out of every other statistic, ${SOURCE}; ${REFRESH}.`,
  ),
  mean: windowed('mean', 'Mean of the numeric values'),
  min: windowed('min', 'Smallest numeric value'),
  max: windowed('max', 'Largest numeric value'),
  stddev: windowed('stddev', 'Sample standard deviation (n-1) of the numeric values'),
  outOfSpec: windowed(
    'out_of_spec_samples',
    "Numeric values outside the spec limits of the window's latest record",
  ),
  ppk: windowed(
    'ppk',
    'Process performance index Ppk = min(USL-mean, mean-LSL)/(3 sd), one-sided with one limit, ' +
      'with the limits of the latest record and at least min_samples values',
  ),
} satisfies Record<string, FamilyDesc>;

/** One measurement series of one station, with its statistics per window. */
export interface MeasurementResult {
  /** The station's labels (site, line, station, station_id[, group]). */
  readonly station: LabelSet;
  readonly name: string;
  readonly slot: string | null;
  readonly unit: string;
  readonly minSamples: number;
  readonly latest: LatestMeasurement;
  readonly windows: ReadonlyArray<{ readonly window: string; readonly stats: MeasurementWindowStats }>;
}

/**
 * Ppk of a window, or undefined without a limit, with fewer than `minSamples` values, or
 * with no spread. With one limit it is the one-sided Ppu = (USL-mean)/(3 sd) or
 * Ppl = (mean-LSL)/(3 sd).
 */
export function ppk(stats: MeasurementWindowStats, minSamples: number): number | undefined {
  const { mean, stddev, upper, lower } = stats;
  if (mean === undefined || stddev === undefined || stddev === 0 || stats.samples < minSamples)
    return undefined;
  const sides: number[] = [];
  if (upper !== undefined) sides.push(upper - mean);
  if (lower !== undefined) sides.push(mean - lower);
  if (sides.length === 0) return undefined;
  return Math.min(...sides) / (3 * stddev);
}

type Key = keyof typeof MEASUREMENT_FAMILIES;

/** Turns measurement results into families; a statistic that does not exist is left out. */
export function measurementFamilies(results: readonly MeasurementResult[]): Family[] {
  const out = new Map<Key, Sample[]>(
    (Object.keys(MEASUREMENT_FAMILIES) as Key[]).map((k) => [k, [] as Sample[]]),
  );
  const add = (key: Key, labels: LabelSet, value: number | undefined) => {
    if (value !== undefined) out.get(key)?.push({ labels, value });
  };
  let lastInfo = '';
  for (const r of results) {
    const info = r.station.with('metric', r.name).with('unit', r.unit);
    // Slots of one name share the info series.
    if (info.text !== lastInfo) add('info', info, 1);
    lastInfo = info.text;
    const series =
      r.slot === null
        ? r.station.with('metric', r.name)
        : r.station.with('metric', r.name).with('slot', r.slot);
    add('lastValue', series, r.latest.value?.value);
    add('lastTimestamp', series, r.latest.value && r.latest.value.time / 1000);
    add('upper', series, r.latest.upper);
    add('lower', series, r.latest.lower);
    for (const { window, stats } of r.windows) {
      const labels = series.with('window', window);
      add('samples', labels, stats.samples);
      add('nonNumeric', labels, stats.nonNumeric);
      add('mean', labels, stats.mean);
      add('min', labels, stats.min);
      add('max', labels, stats.max);
      add('stddev', labels, stats.stddev);
      add('outOfSpec', labels, stats.outOfSpec);
      add('ppk', labels, ppk(stats, r.minSamples));
    }
  }
  return [...out].map(([key, samples]) => ({ desc: MEASUREMENT_FAMILIES[key], samples }));
}
