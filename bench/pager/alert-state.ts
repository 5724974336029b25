/**
 * Prometheus's alerting-rule state machine (rules/alerting.go of Prometheus 2.42), applied to the
 * result of an alert expression evaluated as a range query at the rule group's evaluation
 * interval: `for` (pending until the expression held that long), `keep_firing_for` (a firing
 * alert stays firing that long after the expression stops returning it), and resolution.
 *
 * Only the states that reach Alertmanager matter here: an alert is sent from the evaluation at
 * which it becomes firing (Prometheus sends `StartsAt = FiredAt`) until the one at which it is
 * resolved.
 */

/** One series of a range query's matrix: its labels and the evaluation times (ms) at which it had a value. */
export interface RangeSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly times: readonly number[];
}

/** What Prometheus knows of one alerting rule. */
export interface AlertRule {
  readonly alert: string;
  readonly forMs: number;
  readonly keepFiringForMs: number;
  /** The rule's `labels:` (severity), added to every alert. */
  readonly labels: Readonly<Record<string, string>>;
}

/** One firing period of one alert, as Alertmanager sees it. */
export interface FiringSpan {
  /** Alert labels: the series' labels without `__name__`, with the rule's labels and `alertname`. */
  readonly labels: Readonly<Record<string, string>>;
  /** Evaluation time at which the alert became firing. */
  readonly firedAt: number;
  /** Evaluation time at which it was resolved; undefined while still firing at the end. */
  readonly resolvedAt?: number;
}

/** The alert's labels as Prometheus builds them (rule labels override the series'). */
export function alertLabels(
  rule: AlertRule,
  series: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(series)) if (k !== '__name__') out[k] = v;
  Object.assign(out, rule.labels);
  out.alertname = rule.alert;
  return out;
}

/** Stable key of a label set (sorted), the model's fingerprint. */
export function labelKey(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',');
}

/**
 * Firing spans of one rule over the evaluation times `evalTimes` (ascending, one interval
 * apart). Series with the same alert labels are merged, as Prometheus refuses duplicates.
 */
export function firingSpans(
  rule: AlertRule,
  matrix: readonly RangeSeries[],
  evalTimes: readonly number[],
): FiringSpan[] {
  const activeAt = new Map<string, { labels: Record<string, string>; times: Set<number> }>();
  for (const s of matrix) {
    const labels = alertLabels(rule, s.labels);
    const key = labelKey(labels);
    const entry = activeAt.get(key) ?? { labels, times: new Set<number>() };
    for (const t of s.times) entry.times.add(t);
    activeAt.set(key, entry);
  }
  const spans: FiringSpan[] = [];
  for (const { labels, times } of activeAt.values())
    spans.push(...spansOfOne(rule, { labels, times, evalTimes }));
  return spans.sort((a, b) => a.firedAt - b.firedAt);
}

function spansOfOne(
  rule: AlertRule,
  one: {
    readonly labels: Record<string, string>;
    readonly times: ReadonlySet<number>;
    readonly evalTimes: readonly number[];
  },
): FiringSpan[] {
  const out: FiringSpan[] = [];
  let state: 'inactive' | 'pending' | 'firing' = 'inactive';
  let activeSince = 0;
  let firedAt = 0;
  let keepFiringSince: number | undefined;
  for (const t of one.evalTimes) {
    if (one.times.has(t)) {
      keepFiringSince = undefined;
      if (state === 'inactive') {
        state = 'pending';
        activeSince = t;
      }
      if (state === 'pending' && t - activeSince >= rule.forMs) {
        state = 'firing';
        firedAt = t;
      }
      continue;
    }
    if (state === 'pending') state = 'inactive';
    if (state !== 'firing') continue;
    if (rule.keepFiringForMs > 0) {
      keepFiringSince ??= t;
      if (t - keepFiringSince < rule.keepFiringForMs) continue;
    }
    out.push({ labels: one.labels, firedAt, resolvedAt: t });
    state = 'inactive';
    keepFiringSince = undefined;
  }
  if (state === 'firing') out.push({ labels: one.labels, firedAt });
  return out;
}
