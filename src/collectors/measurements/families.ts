/** Measurement families: latest values, limits and per-window statistics (docs/measurements.md). */
import { type Family, type FamilyDesc, LabelSet, type Sample } from '../../exposition/model.ts';
import { getOrCreate } from '../../util/maps.ts';
import {
  type Capability,
  type CapabilityMethod,
  capability,
  OMIT_REASONS,
  type OmitReason,
} from './capability.ts';
import type { MeasurementWindowStats } from './stats.ts';
import type { Limits } from './store.ts';

const STATION = ['site', 'line', 'station', 'station_id', 'group'];
const SERIES = [...STATION, 'metric', 'slot'];
const WINDOWED = [...SERIES, 'window'];
const SOURCE = 'from the upstream GET /metrics records';
const REFRESH = 'refreshed every measurements interval';
const CURRENT =
  'against the current limits (those of the newest numeric record that has limits), with at least min_samples values';

function gauge(name: string, labels: readonly string[], help: string): FamilyDesc {
  return { name, kind: 'gauge', labels, help };
}

function windowed(suffix: string, what: string, labels: readonly string[] = WINDOWED): FamilyDesc {
  return gauge(
    `station_measurement_window_${suffix}`,
    labels,
    `${what} over the window, ${SOURCE} held in memory; ${REFRESH}.`,
  );
}

function counter(name: string, help: string): FamilyDesc {
  return { name, kind: 'counter', labels: STATION, help: `${help}; ${REFRESH}.` };
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
  lastTimestamp: {
    ...gauge(
      'station_measurement_last_timestamp_seconds',
      SERIES,
      `Time (Unix seconds) the latest numeric value was measured, its time_created ${SOURCE}; ${REFRESH}.`,
    ),
    unit: 'seconds',
  },
  upper: gauge(
    'station_measurement_upper_limit',
    SERIES,
    `Upper spec limit of the newest numeric record that has limits (a newer record without limits keeps them), ${SOURCE}; absent when it has none; ${REFRESH}.`,
  ),
  lower: gauge(
    'station_measurement_lower_limit',
    SERIES,
    `Lower spec limit of the newest numeric record that has limits (a newer record without limits keeps them), ${SOURCE}; absent when it has none; ${REFRESH}.`,
  ),
  samples: windowed(
    'samples',
    'Records with a numeric value (0 for a known series without records, kept for measurements.retention)',
  ),
  nonNumeric: windowed(
    'non_numeric_samples',
    'Records whose value is not a number (PASS, empty, 0x10), left out of every numeric statistic',
  ),
  attributes: windowed(
    'attribute_samples',
    'Attribute test records by outcome (pass, fail), matched case-insensitively against measurements.attributes',
    [...WINDOWED, 'outcome'],
  ),
  mean: windowed('mean', 'Mean of the numeric values'),
  min: windowed('min', 'Smallest numeric value'),
  max: windowed('max', 'Largest numeric value'),
  stddev: windowed(
    'stddev',
    'Sample standard deviation (n-1) of the numeric values, 0 when equal to within a few ulps',
  ),
  outOfSpec: windowed(
    'out_of_spec_samples',
    "Numeric values outside their own record's spec limits (present when a record in the window has a limit)",
  ),
  ppk: windowed(
    'ppk',
    `Process performance index Ppk = min(USL-mean, mean-LSL)/(3 sd), one-sided with one limit, ${CURRENT}`,
  ),
  pp: windowed('pp', `Process performance Pp = (USL-LSL)/(6 sd), with both limits, ${CURRENT}`),
  cpk: windowed(
    'cpk',
    `Process capability index Cpk = min(USL-mean, mean-LSL)/(3 sigma_within), sigma_within = mean moving range/1.128 over time-ordered values, one-sided with one limit, ${CURRENT}`,
  ),
  cp: windowed('cp', `Process capability Cp = (USL-LSL)/(6 sigma_within), with both limits, ${CURRENT}`),
  ppkLower: windowed(
    'ppk_lower_bound',
    `One-sided 95 % lower confidence bound of Ppk by the name's capability method (percentile: distribution-free from order statistics, absent below 3544 values; box-cox: Bissell on the transformed values), for methods other than normal, ${CURRENT}`,
  ),
  ppkUpper: windowed(
    'ppk_upper_bound',
    `One-sided 95 % upper confidence bound of Ppk by the name's capability method (percentile: distribution-free from order statistics, absent below 3544 values; box-cox: Bissell on the transformed values), for methods other than normal, ${CURRENT}`,
  ),
  boxCoxLambda: windowed(
    'box_cox_lambda',
    'Box-Cox lambda by maximum likelihood of the numeric values, for names with capability method box-cox, with at least min_samples positive values and a limit',
  ),
  adStatistic: windowed(
    'anderson_darling',
    'Anderson-Darling normality statistic A2 (mean and sd estimated) of the values the capability method models (box-cox: transformed), with at least 8 values',
  ),
  adPValue: windowed(
    'anderson_darling_p_value',
    "p-value of the Anderson-Darling normality test (D'Agostino and Stephens 1986, from A2 with the small-sample modification); below 0.05 the normal method's Ppk is suspect",
  ),
  capabilityInfo: {
    ...gauge(
      'station_measurement_capability_info',
      ['metric', 'method'],
      'Capability method (normal, percentile, box-cox) by which the Ppk, Pp, Cpk and Cp of a configured measurement name are computed from the upstream GET /metrics records (value always 1), set in the config.',
    ),
    kind: 'info',
  },
  omitted: gauge(
    'station_measurement_window_capability_omitted_series',
    [...STATION, 'window', 'index', 'reason'],
    `Measurement series of the station whose index (ppk, cpk) is left out of the window, by reason (no_limits, too_few_samples, zero_spread, non_positive), ${SOURCE}; ${REFRESH}.`,
  ),
  future: counter(
    'station_measurement_future_records_total',
    `Measurement records dated more than upstream.max_future_skew after the poll, skipped from every statistic, ${SOURCE}, counted since the exporter started`,
  ),
  late: counter(
    'station_measurement_late_records_total',
    `Measurement records that arrived later than measurements.overlap (by time_inserted, or found only by the re-read sweep), ${SOURCE}, counted since the exporter started`,
  ),
} satisfies Record<string, FamilyDesc>;

/** One measurement series of one station, with its statistics per window. */
export interface MeasurementResult {
  readonly station: LabelSet;
  readonly name: string;
  readonly slot: string | null;
  readonly unit: string;
  readonly minSamples: number;
  readonly latest?: { readonly time: number; readonly value: number };
  readonly limits?: Limits;
  /** An attribute value was seen: export attribute counts. */
  readonly attributes: boolean;
  readonly windows: ReadonlyArray<{
    readonly window: string;
    readonly stats: MeasurementWindowStats;
    /** The window's capability by the name's method; by the normal method from `stats` when absent. */
    readonly capability?: Capability;
  }>;
}

/** Cumulative record counts of one station. */
export interface StationRecordCounts {
  readonly station: LabelSet;
  readonly future: number;
  readonly late: number;
}

type Key = keyof typeof MEASUREMENT_FAMILIES;

/**
 * Turns results added in parts into families, so that a caller can yield between parts (a plant
 * makes 100k series and more); a statistic that does not exist is left out.
 */
export class MeasurementFamilyBuilder {
  private readonly out = new Map<Key, Sample[]>(
    (Object.keys(MEASUREMENT_FAMILIES) as Key[]).map((k) => [k, [] as Sample[]]),
  );
  private readonly omitted = new Omissions();
  private lastInfo = '';

  private put(key: Key, labels: LabelSet, value: number | undefined): void {
    if (value !== undefined) this.out.get(key)?.push({ labels, value });
  }

  /** Adds the series of `results`, which continue those added before. */
  add(results: readonly MeasurementResult[]): void {
    const add = this.put.bind(this);
    for (const r of results) {
      const info = r.station.with('metric', r.name).with('unit', r.unit);
      // Slots of one name share the info series.
      if (info.text !== this.lastInfo) add('info', info, 1);
      this.lastInfo = info.text;
      // No slot is no label: an empty slot was already made null at the edge.
      const series =
        r.slot === null
          ? r.station.with('metric', r.name)
          : r.station.with('metric', r.name).with('slot', r.slot);
      add('lastValue', series, r.latest?.value);
      add('lastTimestamp', series, r.latest && r.latest.time / 1000);
      add('upper', series, r.limits?.upper);
      add('lower', series, r.limits?.lower);
      for (const { window, stats, capability: computed } of r.windows) {
        const labels = series.with('window', window);
        const cap = computed ?? capability(stats, r.limits, r.minSamples);
        add('samples', labels, stats.samples);
        add('nonNumeric', labels, stats.nonNumeric);
        if (r.attributes) {
          add('attributes', labels.with('outcome', 'pass'), stats.passed);
          add('attributes', labels.with('outcome', 'fail'), stats.failed);
        }
        add('mean', labels, stats.mean);
        add('min', labels, stats.min);
        add('max', labels, stats.max);
        add('stddev', labels, stats.stddev);
        add('outOfSpec', labels, stats.outOfSpec);
        add('ppk', labels, cap.ppk);
        add('pp', labels, cap.pp);
        add('cpk', labels, cap.cpk);
        add('cp', labels, cap.cp);
        add('ppkLower', labels, cap.bounds?.lower);
        add('ppkUpper', labels, cap.bounds?.upper);
        add('boxCoxLambda', labels, cap.lambda);
        add('adStatistic', labels, cap.normality?.statistic);
        add('adPValue', labels, cap.normality?.pValue);
        this.omitted.count(r.station, window, cap.omitted);
      }
    }
  }

  /** The families of every result added; call it once, last. */
  families(
    stations: readonly StationRecordCounts[] = [],
    methods: ReadonlyMap<string, CapabilityMethod> = new Map(),
  ): Family[] {
    for (const [metric, method] of methods) this.put('capabilityInfo', LabelSet.of({ metric, method }), 1);
    for (const { labels, n } of this.omitted.all) this.put('omitted', labels, n);
    for (const s of stations) {
      this.put('future', s.station, s.future);
      this.put('late', s.station, s.late);
    }
    return [...this.out].map(([key, samples]) => ({ desc: MEASUREMENT_FAMILIES[key], samples }));
  }
}

const OMIT_INDEXES = ['ppk', 'cpk'] as const;

/** Rows of the omissions family per station and window: every index and reason, 0 included. */
export const OMISSION_ROWS_PER_WINDOW = OMIT_INDEXES.length * OMIT_REASONS.length;

/** Counts of series without Ppk / Cpk per station, window and reason; every reason is exported, 0 included. */
class Omissions {
  /** In the order first counted: the exported order. */
  readonly all: Array<{ labels: LabelSet; index: 'ppk' | 'cpk'; reason: OmitReason; n: number }> = [];
  /** By the station's existing label text: a key built per series cost ~40 MB per poll at 100k series. */
  private readonly byStation = new Map<string, Map<string, Omissions['all']>>();

  count(station: LabelSet, window: string, omitted: { ppk?: OmitReason; cpk?: OmitReason }): void {
    const byWindow = getOrCreate(this.byStation, station.text, () => new Map());
    const rows = getOrCreate(byWindow, window, () => {
      const labels = station.with('window', window);
      const made = OMIT_INDEXES.flatMap((index) =>
        OMIT_REASONS.map((reason) => ({
          labels: labels.with('index', index).with('reason', reason),
          index,
          reason,
          n: 0,
        })),
      );
      this.all.push(...made);
      return made;
    });
    for (const row of rows) if (omitted[row.index] === row.reason) row.n++;
  }
}
