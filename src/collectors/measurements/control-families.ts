/** Control-chart families of the measurements collector; docs/measurements.md#control-charts defines them. */

import type { ControlConfig } from '../../config/control-schema.ts';
import type { Config } from '../../config/schema.ts';
import { type Family, type FamilyDesc, LabelSet, type Sample } from '../../exposition/model.ts';
import { type ChartOutcome, CUSUM_EVENT, EWMA_EVENT } from '../../spc/index.ts';
import { RULE_NUMBERS } from '../../spc/rules.ts';
import { addLimitsSource, LIMITS_SOURCE_FAMILIES, type LimitsSource } from './limits-families.ts';

const SERIES = ['site', 'line', 'station', 'station_id', 'group', 'metric', 'slot', 'product'];
const BY_RULE = [...SERIES, 'rule'];
const BY_FLAG = [...SERIES, 'flag'];
/** A charted name's settings are the same for all its charts: one series per name. */
const BY_NAME = ['metric'];
const SOURCE = 'computed by the exporter from the upstream GET /metrics records it holds';
const REFRESH = 'refreshed every measurements interval';
const GENERIC_BASELINE = 'the baseline configured for the name in measurements.control';

function gauge(name: string, labels: readonly string[], help: string): FamilyDesc {
  return { name, kind: 'gauge', labels, help };
}

/**
 * The control families, in exposition order. HELP names the baseline of every `control.names`
 * entry; without a config (the generated reference), generically.
 */
function controlFamilyDescs(control?: ControlConfig) {
  const base = control ? baselineText(control) : GENERIC_BASELINE;
  const limit = (suffix: string, what: string) =>
    gauge(
      `station_measurement_control_${suffix}`,
      SERIES,
      `${what}, in the measurement's unit, from ${base}; ${SOURCE}; ${REFRESH}.`,
    );
  const setting = (suffix: string, what: string) =>
    gauge(
      `station_measurement_control_${suffix}`,
      BY_NAME,
      `${what}, for every chart of the measurement name "metric" (measurements.control, with the name's ` +
        `overrides); one series per charted name; ${REFRESH}.`,
    );
  return {
    state: gauge(
      'station_measurement_control_state',
      SERIES,
      `1 when an enabled Nelson rule has a violation among the points of the evaluation window, 0 when none; ` +
        `absent while the series has no control limits (too few baseline points, no spread); limits from ${base}; ${SOURCE}; ${REFRESH}.`,
    ),
    events: {
      name: 'station_measurement_control_violations_total',
      kind: 'counter',
      labels: BY_RULE,
      help:
        `Violation events: rule="1" points beyond the 3-sigma limits (Nelson rule 1), rule="2-8" completions of ` +
        `the enabled Nelson rules 2 to 8 together (station_measurement_control_window_violations says which), ` +
        `rule="cusum" and rule="ewma" the sequential detectors' signals. Each point is counted once, when first ` +
        `evaluated (never again as the window slides or the baseline moves); points older than the exporter's ` +
        `first poll of the series are context, not events, so a restart does not count them again. Alert on ` +
        `increase() of it. Each series exists from the series' first poll, at 0, while its rules or detector are ` +
        `enabled; limits from ${base}; ${SOURCE}; ${REFRESH}.`,
    },
    violations: gauge(
      'station_measurement_control_window_violations',
      BY_RULE,
      `Points of the evaluation window at which Nelson rule "rule" (1 to 8) completes, for dashboards (alerts use ` +
        `station_measurement_control_violations_total). Sparse: a rule's series exists only while it has a ` +
        `violation in the window (no 0 sample); limits from ${base}; ${SOURCE}; ${REFRESH}.`,
    ),
    lastViolation: {
      ...gauge(
        'station_measurement_control_last_violation_timestamp_seconds',
        BY_RULE,
        `Time (Unix seconds, the record's time_created) of the last signal of "rule" (cusum or ewma) counted as ` +
          `an event since the exporter started; signals in the history replayed at start set none. Sparse: absent ` +
          `until the detector has signalled; ${SOURCE}; ${REFRESH}.`,
      ),
      unit: 'seconds',
    },
    center: limit('center', 'Centre line of the I chart (the baseline mean, or the given centre)'),
    ucl: limit('ucl', 'Upper control limit of the I chart (centre + 3 sigma, or the given one)'),
    lcl: limit('lcl', 'Lower control limit of the I chart (centre - 3 sigma, or the given one)'),
    flag: gauge(
      'station_measurement_control_baseline_flag',
      BY_FLAG,
      `1 when the baseline breaks an assumption of the documented false-alarm rates: flag="autocorrelated" ` +
        `(lag-1 autocorrelation significantly above 0.1 for the baseline's size: a one-sided test at the 1 % ` +
        `level), flag="quantized" (the finest step between neighbouring values is coarser than half a sigma: ` +
        `too few levels for the rules' zones; not compensated). Sparse: a flag's series exists only while it is ` +
        `raised (no 0 sample), so a healthy chart has none; the status page lists the flagged charts with their ` +
        `phi and resolution. From ${base}; ${SOURCE}; ${REFRESH}.`,
    ),
    late: {
      name: 'station_measurement_control_late_points_total',
      kind: 'counter',
      labels: SERIES,
      help:
        `Points of the evaluation window that arrived after newer points of the series had been evaluated, and older ` +
        `than measurements.overlap before the poll: kept in the baseline, never evaluated by the rules, the CUSUM or the ` +
        `EWMA (a late point inside the overlap is put in its place for the CUSUM and EWMA instead). Sparse: a ` +
        `series' counter exists from its first late point; ${SOURCE}; ${REFRESH}.`,
    },
    cusumUpper: gauge(
      'station_measurement_control_cusum_upper',
      SERIES,
      `Upper CUSUM sum C+ = max(0, C+ + z - k), in sigmas (z: the value calibrated on the chart's baseline, its ` +
        `mean and standard deviation, skewed data mapped to a normal shape; for approved limits on the shape ` +
        `their study measured, the same way; counted at most ` +
        `measurements.control.cusum.cap sigmas either way); ` +
        `a signal (rule="cusum" event, also counted for the fast CUSUM beside it) when it exceeds ` +
        `station_measurement_control_cusum_decision_interval, and at a signal the sum that crossed it until the ` +
        `next point. Divided by ((1 + phi) / (1 - phi))^0.875, the factor h is widened by for the lag-1 ` +
        `autocorrelation phi of the baseline (approved limits: of their study), so that every chart of a name ` +
        `signals where its sums cross the name's h; ${SOURCE}; ${REFRESH}.`,
    ),
    cusumLower: gauge(
      'station_measurement_control_cusum_lower',
      SERIES,
      `Lower CUSUM sum C- = max(0, C- - z - k), in sigmas, shown as the upper one (the crossing at a signal, ` +
        `divided by the widening for autocorrelation); a signal (rule="cusum" event) when it exceeds the ` +
        `decision interval; ${SOURCE}; ${REFRESH}.`,
    ),
    ewma: gauge(
      'station_measurement_control_ewma',
      SERIES,
      `EWMA statistic Z = lambda x + (1 - lambda) Z of the values, in the measurement's unit (centre + Z sigma); a ` +
        `signal (rule="ewma" event) when it is beyond centre ± station_measurement_control_ewma_half_width, and ` +
        `at a signal the statistic that crossed until the next point; ${SOURCE}; ${REFRESH}.`,
    ),
    ewmaHalfWidth: gauge(
      'station_measurement_control_ewma_half_width',
      SERIES,
      `Distance of the EWMA's limits from the centre line, in the measurement's unit: its limits are ` +
        `station_measurement_control_center ± this, L sigma sqrt(lambda / (2 - lambda) (1 - (1 - lambda)^(2t))), t the ` +
        `points since its (re)start (at a signal, the limits it crossed; L widened on a chart compensated for ` +
        `autocorrelation); ${SOURCE}; ${REFRESH}.`,
    ),
    cusumH: setting(
      'cusum_decision_interval',
      'Decision interval h of the CUSUM, in sigmas: either sum beyond it signals (a chart compensated for ' +
        'autocorrelation phi, of its baseline or of the study of its approved limits, uses h ((1 + phi) / (1 - phi))^0.875, ' +
        'and exports its sums divided by that factor)',
    ),
    cusumK: setting('cusum_reference_value', 'Reference value (allowance) k of the CUSUM, in sigmas'),
    ewmaLambda: setting('ewma_lambda', 'Weight lambda of the newest point in the EWMA'),
    ewmaL: setting(
      'ewma_limit_sigmas',
      "Width L of the EWMA's limits, in standard deviations of the statistic (widened on a chart compensated for " +
        'autocorrelation)',
    ),
    limitsInfo: LIMITS_SOURCE_FAMILIES.info,
    approvedAt: LIMITS_SOURCE_FAMILIES.approvedAt,
    exclusions: LIMITS_SOURCE_FAMILIES.exclusions,
  } satisfies Record<string, FamilyDesc>;
}

type Key = keyof ReturnType<typeof controlFamilyDescs>;
const CONTROL_KEYS = Object.keys(controlFamilyDescs()) as Key[];

/** The control families with generic HELP, for the collector's list and the metrics reference. */
export const CONTROL_FAMILIES: readonly FamilyDesc[] = Object.values(controlFamilyDescs());

function baselineText(control: ControlConfig): string {
  if (control.names.length === 0) return GENERIC_BASELINE;
  const names = namesBaselineText(control);
  return control.limitsFile === undefined
    ? names
    : `${names}; or, for a chart with an approved entry in the approved-limits file (measurements.control.limits_file), ` +
        'its approved limits, frozen (station_measurement_control_limits_info says which)';
}

function namesBaselineText(control: ControlConfig): string {
  const parts = control.names.map((n) => {
    const b = n.baseline;
    const what =
      b.kind === 'rolling'
        ? `a rolling baseline of ${formatDuration(b.durationMs)} before the evaluation window`
        : b.kind === 'frozen'
          ? `the frozen baseline ${new Date(b.fromMs).toISOString()} to ${new Date(b.toMs).toISOString()}`
          : 'the limits given in config';
    return `${what} for names matching ${patternText(n.pattern)}`;
  });
  return parts.join('; ');
}

/** The pattern as configured, without the anchors the config added. */
function patternText(pattern: RegExp): string {
  return pattern.source.replace(/^\^\(\?:/, '').replace(/\)\$$/, '');
}

function formatDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** One charted series' outcome at a poll. */
export interface ControlOutcome {
  readonly metric: string;
  readonly series: SeriesLabels;
  readonly source: LimitsSource;
  /** Its limits are undefined when the series has none (then only the event counters are exported). */
  readonly chart: ChartOutcome;
}

/** A chart's label sets, kept by the caller: charts out of control need them every poll. */
export interface SeriesLabels {
  /** Station labels plus `metric`, `slot` and `product` when set. */
  readonly labels: LabelSet;
  /** `labels` with `rule` for each event counter ({@link EVENT_RULE_NAMES}). */
  readonly events: readonly LabelSet[];
  /** `labels` with `rule` per window violations series (index rule - 1), then with each `flag`, filled as first needed. */
  readonly sparse: Array<LabelSet | undefined>;
}

/**
 * The `rule` label of each event counter. Rules 2 to 8 share one: a counter per rule was eight
 * series per chart; the window gauge keeps which completed.
 */
export const EVENT_RULE_NAMES = ['1', '2-8', 'cusum', 'ewma'] as const;
const RULE_1 = 0;
const RULES_2_TO_8 = 1;
const CUSUM_COUNTER = 2;
const EWMA_COUNTER = 3;
const RULE_COUNT = 8;

/** Turns the outcomes into families: per chart, then the detectors' settings per charted name. */
export function controlFamilies(outcomes: readonly ControlOutcome[], control?: ControlConfig): Family[] {
  const descs = controlFamilyDescs(control);
  // An object of arrays, not a map: a lookup per sample, some 100,000 a poll at 5,000 charts.
  const out = Object.fromEntries(CONTROL_KEYS.map((k) => [k, []])) as unknown as Record<Key, Sample[]>;
  const counters = countersOf(control);
  const names = new Set<string>();
  let lastMetric: string | undefined;
  for (const { metric, series, source, chart } of outcomes) {
    // Charts of one name mostly follow each other: one set lookup per run of them.
    if (metric !== lastMetric) {
      names.add(metric);
      lastMetric = metric;
    }
    const { labels } = series;
    addCounters(out.events, series.events, chart.events, counters);
    addDetectors(out, labels, chart);
    addLastTimes(out.lastViolation, series.events, chart.lastTimes);
    if (chart.late > 0) out.late.push({ labels, value: chart.late });
    addLimitsSource(
      { info: out.limitsInfo, approvedAt: out.approvedAt, exclusions: out.exclusions },
      source,
      labels,
    );
    addLimits(out, series, chart);
  }
  if (control !== undefined) addSettings(control, names, out);
  return CONTROL_KEYS.map((k) => ({ desc: descs[k], samples: out[k] }));
}

interface Counters {
  readonly rule1: boolean;
  readonly later: readonly number[];
  readonly cusum: boolean;
  readonly ewma: boolean;
}

function countersOf(control: ControlConfig | undefined): Counters {
  const rules = control?.rules;
  const enabled = (r: number) => rules === undefined || rules[r as keyof typeof rules].enabled;
  return {
    rule1: enabled(1),
    later: RULE_NUMBERS.filter((r) => r > 1 && enabled(r)),
    cusum: control?.cusum.enabled !== false,
    ewma: control?.ewma.enabled !== false,
  };
}

/**
 * Every counter exists from the series' first poll, at 0: increase() then sees the first event as a
 * rise, and a restart's 0 as a counter reset, never as an event.
 */
function addCounters(into: Sample[], labels: readonly LabelSet[], events: ArrayLike<number>, on: Counters) {
  const push = (counter: number, value: number) => into.push({ labels: labels[counter]!, value });
  if (on.rule1) push(RULE_1, events[0] ?? 0);
  const later = on.later;
  if (later.length > 0) {
    let n = 0;
    for (let j = 0; j < later.length; j++) n += events[later[j]! - 1] ?? 0;
    push(RULES_2_TO_8, n);
  }
  if (on.cusum) push(CUSUM_COUNTER, events[CUSUM_EVENT] ?? 0);
  if (on.ewma) push(EWMA_COUNTER, events[EWMA_EVENT] ?? 0);
}

function addDetectors(out: Record<Key, Sample[]>, labels: LabelSet, chart: ChartOutcome): void {
  const { detectors: seq, limits: l } = chart;
  if (seq?.cusum) {
    out.cusumUpper.push({ labels, value: seq.cusum.upper / seq.cusum.widening });
    out.cusumLower.push({ labels, value: seq.cusum.lower / seq.cusum.widening });
  }
  if (seq?.ewma && l !== undefined) {
    out.ewma.push({ labels, value: seq.ewma.value });
    out.ewmaHalfWidth.push({ labels, value: seq.ewma.upper - l.center });
  }
}

function addLastTimes(into: Sample[], labels: readonly LabelSet[], lastTimes: ArrayLike<number>): void {
  for (const [event, counter] of DETECTOR_SLOTS) {
    const at = lastTimes[event] ?? Number.NaN;
    if (!Number.isNaN(at)) into.push({ labels: labels[counter]!, value: at / 1000 });
  }
}

const DETECTOR_SLOTS = [
  [CUSUM_EVENT, CUSUM_COUNTER],
  [EWMA_EVENT, EWMA_COUNTER],
] as const;

function addLimits(out: Record<Key, Sample[]>, series: SeriesLabels, chart: ChartOutcome): void {
  const { labels } = series;
  const l = chart.limits;
  if (l === undefined) return;
  let violated = false;
  for (let k = 0; k < RULE_COUNT; k++) {
    const n = chart.counts[k] ?? 0;
    if (n === 0) continue;
    violated = true;
    out.violations.push({ labels: sparseLabels(series, k), value: n });
  }
  out.state.push({ labels, value: violated ? 1 : 0 });
  out.center.push({ labels, value: l.center });
  out.ucl.push({ labels, value: l.ucl });
  out.lcl.push({ labels, value: l.lcl });
  // Sigma, size, phi and resolution are on the status page: five series per chart nothing read.
  if (l.autocorrelated === true) out.flag.push({ labels: sparseLabels(series, AUTOCORRELATED), value: 1 });
  if (l.quantized === true) out.flag.push({ labels: sparseLabels(series, QUANTIZED), value: 1 });
}

/** Index in {@link SeriesLabels.sparse} of the flags' label sets, after the eight rules'. */
const AUTOCORRELATED = RULE_COUNT;
const QUANTIZED = RULE_COUNT + 1;

/** A window violations series' (`at` rule - 1) or a flag's labels, cached in the caller's array. */
function sparseLabels({ labels, sparse }: SeriesLabels, at: number): LabelSet {
  sparse[at] ??=
    at < RULE_COUNT
      ? labels.with('rule', String(at + 1))
      : labels.with('flag', at === AUTOCORRELATED ? 'autocorrelated' : 'quantized');
  return sparse[at];
}

/** The first matching entry's settings, per charted name seen. */
function addSettings(control: ControlConfig, names: ReadonlySet<string>, out: Record<Key, Sample[]>): void {
  for (const name of [...names].sort()) {
    const entry = control.names.find((n) => n.pattern.test(name));
    if (entry === undefined) continue;
    const labels = LabelSet.of({ metric: name });
    if (entry.cusum.enabled) {
      out.cusumH.push({ labels, value: entry.cusum.h });
      out.cusumK.push({ labels, value: entry.cusum.k });
    }
    if (entry.ewma.enabled) {
      out.ewmaLambda.push({ labels, value: entry.ewma.lambda });
      out.ewmaL.push({ labels, value: entry.ewma.L });
    }
  }
}

/**
 * Steady-state series by family of one chart (13 with everything on) and of one charted name's
 * settings, so that the budget's estimate can drop families as the run time does. Sparse series
 * are not counted: an in-control chart has about 0.4 window series on average, the rest are rare.
 * Multiply the per-chart ones by the series of the charted names ({@link chartedNames}).
 */
export function controlSeriesByFamily(config: Config): {
  readonly perChart: ReadonlyMap<string, number>;
  readonly perName: ReadonlyMap<string, number>;
} {
  const control = config.measurements.control;
  const d = controlFamilyDescs();
  const perChart = new Map<string, number>();
  const perName = new Map<string, number>();
  for (const key of ['state', 'center', 'ucl', 'lcl', 'limitsInfo'] as const) perChart.set(d[key].name, 1);
  const rule1 = control.rules[1].enabled ? 1 : 0;
  const later = RULE_NUMBERS.some((r) => r > 1 && control.rules[r].enabled) ? 1 : 0;
  const counters = rule1 + later + (control.cusum.enabled ? 1 : 0) + (control.ewma.enabled ? 1 : 0);
  if (counters > 0) perChart.set(d.events.name, counters);
  const on = (keys: readonly Key[], into: Map<string, number>) => {
    for (const key of keys) into.set(d[key].name, 1);
  };
  if (control.cusum.enabled) {
    on(['cusumUpper', 'cusumLower'], perChart);
    on(['cusumH', 'cusumK'], perName);
  }
  if (control.ewma.enabled) {
    on(['ewma', 'ewmaHalfWidth'], perChart);
    on(['ewmaLambda', 'ewmaL'], perName);
  }
  return { perChart, perName };
}

/** The configured measurement names that `measurements.control.names` charts. */
export function chartedNames(config: Config): string[] {
  const patterns = config.measurements.control.names.map((n) => n.pattern);
  return config.measurements.names.map((n) => n.name).filter((name) => patterns.some((p) => p.test(name)));
}
