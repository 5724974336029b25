/**
 * Control-chart families of the measurements collector (issue 13): per station, measurement
 * name (`metric`) and slot, the I-MR limits of its baseline and the Nelson rules' results over
 * the evaluation window. docs/measurements.md#control-charts defines every value.
 */

import type { ControlConfig } from '../../config/control-schema.ts';
import type { Config } from '../../config/schema.ts';
import type { Family, FamilyDesc, LabelSet, Sample } from '../../exposition/model.ts';
import type { ControlLimits } from '../../spc/index.ts';
import { CUSUM_EVENT, EWMA_EVENT, type SequentialView } from '../../spc/index.ts';
import { RULE_NUMBERS } from '../../spc/rules.ts';

const SERIES = ['site', 'line', 'station', 'station_id', 'group', 'metric', 'slot'];
const BY_RULE = [...SERIES, 'rule'];
const BY_FLAG = [...SERIES, 'flag'];
const SOURCE = 'computed by the exporter from the upstream GET /metrics records it holds';
const REFRESH = 'refreshed every measurements interval';
const GENERIC_BASELINE = 'the baseline configured for the name in measurements.control';

/** A gauge without a unit; a family with one adds it: `{ ...gauge(…), unit: 'seconds' }`. */
function gauge(name: string, labels: readonly string[], help: string): FamilyDesc {
  return { name, kind: 'gauge', labels, help };
}

/** Keys of the control families, in exposition order. */
export const CONTROL_KEYS = [
  'state',
  'events',
  'violations',
  'lastViolation',
  'center',
  'ucl',
  'lcl',
  'flag',
  'late',
  'cusumUpper',
  'cusumLower',
  'cusumH',
  'ewma',
  'ewmaUpper',
  'ewmaLower',
] as const;
type Key = (typeof CONTROL_KEYS)[number];

/**
 * The control families. HELP says which baseline produced the limits: with a config, the
 * baseline of every `control.names` entry; without one (the generated reference), generically.
 */
export function controlFamilyDescs(control?: ControlConfig): Record<Key, FamilyDesc> {
  const base = control ? baselineText(control) : GENERIC_BASELINE;
  const limit = (suffix: string, what: string) =>
    gauge(
      `station_measurement_control_${suffix}`,
      SERIES,
      `${what}, in the measurement's unit, from ${base}; ${SOURCE}; ${REFRESH}.`,
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
        `Violation events of Nelson rule "rule": points that completed the rule when first evaluated, each counted once ` +
        `(never again as the window slides or the baseline moves); points older than the exporter's first poll of the ` +
        `series are context, not events, so a restart does not count them again. Alert on increase() of it. ` +
        `One series per enabled rule while the series is charted; limits from ${base}; ${SOURCE}; ${REFRESH}.`,
    },
    violations: gauge(
      'station_measurement_control_window_violations',
      BY_RULE,
      `Points of the evaluation window at which Nelson rule "rule" completes, for dashboards (alerts use ` +
        `station_measurement_control_violations_total). Sparse: a rule's series exists only while it has a ` +
        `violation in the window (no 0 sample); limits from ${base}; ${SOURCE}; ${REFRESH}.`,
    ),
    lastViolation: {
      ...gauge(
        'station_measurement_control_last_violation_timestamp_seconds',
        BY_RULE,
        `Time (Unix seconds, the record's time_created) of the last violation of "rule" (a Nelson rule, or the cusum ` +
          `or ewma signal) seen since the exporter started; sparse: absent until the rule has had one; ${SOURCE}; ${REFRESH}.`,
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
        `(|lag-1 autocorrelation| > 0.1; a positive one is compensated: sigma, h and L widened), flag="quantized" ` +
        `(the finest step between neighbouring values is coarser than half a sigma: too few levels for the rules' ` +
        `zones; not compensated). Sparse: a flag's series exists only while it is raised (no 0 sample), so a ` +
        `healthy chart has none; the status page lists the flagged charts with their phi and resolution. ` +
        `From ${base}; ${SOURCE}; ${REFRESH}.`,
    ),
    late: {
      name: 'station_measurement_control_late_points_total',
      kind: 'counter',
      labels: SERIES,
      help:
        `Points of the evaluation window that arrived after newer points of the series had been judged, and older ` +
        `than measurements.overlap before the poll: kept in the baseline, never judged by the rules, the CUSUM or the ` +
        `EWMA (a late point inside the overlap is put in its place for the CUSUM and EWMA instead); ${SOURCE}; ${REFRESH}.`,
    },
    cusumUpper: gauge(
      'station_measurement_control_cusum_upper',
      SERIES,
      `Upper CUSUM sum C+ = max(0, C+ + z - k), in sigmas (z: the value standardized by the chart's centre and sigma); ` +
        `a signal (rule="cusum" event) when it exceeds station_measurement_control_cusum_decision_interval; ${SOURCE}; ${REFRESH}.`,
    ),
    cusumLower: gauge(
      'station_measurement_control_cusum_lower',
      SERIES,
      `Lower CUSUM sum C- = max(0, C- - z - k), in sigmas; a signal (rule="cusum" event) when it exceeds the ` +
        `decision interval; ${SOURCE}; ${REFRESH}.`,
    ),
    cusumH: gauge(
      'station_measurement_control_cusum_decision_interval',
      SERIES,
      `Decision interval h of the CUSUM in force, in sigmas (measurements.control.cusum.h, times (1 + phi) / (1 - phi) ` +
        `on a chart compensated for autocorrelation phi): either sum beyond it signals; ${REFRESH}.`,
    ),
    ewma: gauge(
      'station_measurement_control_ewma',
      SERIES,
      `EWMA statistic Z = lambda x + (1 - lambda) Z of the values, in the measurement's unit (centre + Z sigma); a ` +
        `signal (rule="ewma" event) when it is beyond its limits; ${SOURCE}; ${REFRESH}.`,
    ),
    ewmaUpper: gauge(
      'station_measurement_control_ewma_upper_limit',
      SERIES,
      `Upper limit of the EWMA, in the measurement's unit: centre + L sigma sqrt(lambda / (2 - lambda) (1 - (1 - lambda)^(2t))), ` +
        `t the points since its (re)start (L widened on a chart compensated for autocorrelation); ${SOURCE}; ${REFRESH}.`,
    ),
    ewmaLower: gauge(
      'station_measurement_control_ewma_lower_limit',
      SERIES,
      `Lower limit of the EWMA, in the measurement's unit (centre minus the same width); ${SOURCE}; ${REFRESH}.`,
    ),
  };
}

/** The control families with generic HELP, for the collector's list and the metrics reference. */
export const CONTROL_FAMILIES: readonly FamilyDesc[] = Object.values(controlFamilyDescs());

function baselineText(control: ControlConfig): string {
  if (control.names.length === 0) return GENERIC_BASELINE;
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
  /** Station labels plus `metric` and (when set) `slot`. */
  readonly labels: LabelSet;
  /** `labels` with `rule` for each event slot (rules 1..8, cusum, ewma), when the caller keeps them. */
  readonly eventLabels?: readonly LabelSet[];
  /** Undefined when the series has no limits (then only the last violation times are exported). */
  readonly limits: ControlLimits | undefined;
  /** Violations per rule (index rule - 1) in the evaluation window. */
  readonly counts: ArrayLike<number>;
  /** Last violation time per rule (Unix ms), NaN when none yet. */
  readonly lastTimes: ArrayLike<number>;
  /** Violation events per rule since the job started (index rule - 1), then CUSUM and EWMA signals. */
  readonly events: ArrayLike<number>;
  /** Late points since the job started (absent: the series' counter is not exported). */
  readonly late?: number;
  /** The CUSUM and EWMA, once rebuilt. */
  readonly sequential?: SequentialView;
}

/** The `rule` label of each event slot: the eight rules, then the CUSUM and the EWMA. */
export const EVENT_RULE_NAMES = ['1', '2', '3', '4', '5', '6', '7', '8', 'cusum', 'ewma'] as const;

/** Turns the outcomes into families; the window violation series are sparse, the event counters not. */
export function controlFamilies(outcomes: readonly ControlOutcome[], control?: ControlConfig): Family[] {
  const descs = controlFamilyDescs(control);
  // An object of arrays, not a map: a lookup per sample, some 100,000 a poll at 5,000 charts.
  const out = Object.fromEntries(CONTROL_KEYS.map((k) => [k, []])) as unknown as Record<Key, Sample[]>;
  const add = (key: Key, labels: LabelSet, value: number) => out[key].push({ labels, value });
  const rules = control?.rules;
  const enabled = RULE_NUMBERS.filter((r) => rules === undefined || rules[r].enabled);
  for (const o of outcomes) {
    // Every enabled rule's counter exists from the series' first poll, at 0: increase() then
    // sees the first event as a rise, and a restart's 0 as a counter reset, never as an event.
    for (const r of enabled) add('events', ruleLabels(o, r - 1), o.events[r - 1] ?? 0);
    if (control?.cusum.enabled !== false)
      add('events', ruleLabels(o, CUSUM_EVENT), o.events[CUSUM_EVENT] ?? 0);
    if (control?.ewma.enabled !== false) add('events', ruleLabels(o, EWMA_EVENT), o.events[EWMA_EVENT] ?? 0);
    const seq = o.sequential;
    if (seq?.cusum) {
      add('cusumUpper', o.labels, seq.cusum.upper);
      add('cusumLower', o.labels, seq.cusum.lower);
      add('cusumH', o.labels, seq.cusum.h);
    }
    if (seq?.ewma) {
      add('ewma', o.labels, seq.ewma.value);
      add('ewmaUpper', o.labels, seq.ewma.upper);
      add('ewmaLower', o.labels, seq.ewma.lower);
    }
    const l = o.limits;
    if (l !== undefined) {
      let violated = false;
      for (const r of RULE_NUMBERS) if ((o.counts[r - 1] ?? 0) > 0) violated = true;
      add('state', o.labels, violated ? 1 : 0);
      for (const r of RULE_NUMBERS) {
        const n = o.counts[r - 1] ?? 0;
        if (n > 0) add('violations', ruleLabels(o, r - 1), n);
      }
    }
    for (let slot = 0; slot < EVENT_RULE_NAMES.length; slot++) {
      const t = o.lastTimes[slot] ?? Number.NaN;
      if (!Number.isNaN(t)) add('lastViolation', ruleLabels(o, slot), t / 1000);
    }
    if (o.late !== undefined) add('late', o.labels, o.late);
    if (l === undefined) continue;
    add('center', o.labels, l.center);
    add('ucl', o.labels, l.ucl);
    add('lcl', o.labels, l.lcl);
    // Sigma is (ucl - lcl) / 6; the baseline's size, phi and resolution are on the status page
    // for the flagged charts: per chart they were five series that no dashboard or alert read.
    if (l.autocorrelated === true) add('flag', o.labels.with('flag', 'autocorrelated'), 1);
    if (l.quantized === true) add('flag', o.labels.with('flag', 'quantized'), 1);
  }
  return CONTROL_KEYS.map((k) => ({ desc: descs[k], samples: out[k] }));
}

/**
 * The labels of an event slot's series (`rule` added): the caller's kept label sets when it has
 * them (a new label set per series and poll was much of the families' cost), else built here.
 */
function ruleLabels(o: ControlOutcome, slot: number): LabelSet {
  return o.eventLabels?.[slot] ?? o.labels.with('rule', EVENT_RULE_NAMES[slot] ?? String(slot + 1));
}

/**
 * Series always present per charted series with limits: state, centre, UCL, LCL and the late
 * points counter. Sparse ones (window violations, last violation times, raised flags) come on top.
 */
export const CONTROL_STEADY_SERIES = 5;

/**
 * Series one charted (station, name, slot) has in steady state: the steady ones, an event counter
 * per enabled rule, and per enabled detector its statistics and counter (CUSUM: two sums, h and
 * the counter; EWMA: the statistic, two limits and the counter). 21 with every detector on.
 * The sparse series (a window violations and a last-violation series per rule while it has one,
 * raised flags) are not counted: most charts have few of them.
 * For the planner's series estimate: multiply by the series of the charted names
 * ({@link chartedNames}).
 */
export function controlSeriesPerSeries(config: Config): number {
  const control = config.measurements.control;
  const enabled = RULE_NUMBERS.filter((r) => control.rules[r].enabled).length;
  const sequential = (control.cusum.enabled ? 4 : 0) + (control.ewma.enabled ? 4 : 0);
  return CONTROL_STEADY_SERIES + enabled + sequential;
}

/** The configured measurement names that `measurements.control.names` charts. */
export function chartedNames(config: Config): string[] {
  const patterns = config.measurements.control.names.map((n) => n.pattern);
  return config.measurements.names.map((n) => n.name).filter((name) => patterns.some((p) => p.test(name)));
}
