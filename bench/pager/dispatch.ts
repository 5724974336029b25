/**
 * Alertmanager 0.25's notification pipeline, replayed on a simulated clock: alerts arrive when
 * they start firing and are resolved when Prometheus resolves them; each route groups them by
 * its `group_by` labels into aggregation groups, which flush `group_wait` after they are created
 * and every `group_interval` after that. A flush drops inhibited alerts (the inhibit rules,
 * against the alerts firing at that moment), then notifies when the notification log says so
 * (dispatch/dispatch.go, notify/notify.go DedupStage.needsUpdate): a firing alert the last
 * notification did not carry, a newly resolved one (send_resolved), or `repeat_interval`
 * elapsed. Resolved alerts leave the group after a flush; an empty group is deleted, and the
 * next alert creates a new one (which waits `group_wait` again). The notification log outlives
 * groups, as in Alertmanager.
 */
import type { FiringSpan } from './alert-state.ts';
import { labelKey } from './alert-state.ts';
import { type AlertmanagerConfig, type InhibitRule, matchesAll, matchRoutes, type Route } from './route.ts';

/** One webhook call. */
export interface Notification {
  readonly at: number;
  readonly receiver: string;
  /** The aggregation group's key: route and grouping labels. */
  readonly group: string;
  readonly groupLabels: Readonly<Record<string, string>>;
  readonly firing: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly resolved: ReadonlyArray<Readonly<Record<string, string>>>;
}

interface Group {
  readonly key: string;
  readonly route: Route;
  readonly labels: Record<string, string>;
  /** Alerts by fingerprint, with their current span. */
  readonly alerts: Map<string, FiringSpan>;
  nextFlush: number;
}

interface LogEntry {
  firing: Set<string>;
  resolved: Set<string>;
  at: number;
}

function groupLabelsOf(route: Route, labels: Readonly<Record<string, string>>): Record<string, string> {
  if (route.groupBy.includes('...')) return { ...labels };
  const out: Record<string, string> = {};
  for (const name of route.groupBy) if (labels[name] !== undefined) out[name] = labels[name];
  return out;
}

const firingAt = (s: FiringSpan, t: number) =>
  s.firedAt <= t && (s.resolvedAt === undefined || t < s.resolvedAt);

/** Replays alert spans through an Alertmanager configuration. */
export class AlertmanagerModel {
  readonly #config: AlertmanagerConfig;
  readonly #spans: readonly FiringSpan[];
  readonly #groups = new Map<string, Group>();
  readonly #log = new Map<string, LogEntry>();
  readonly #out: Notification[] = [];

  constructor(config: AlertmanagerConfig, spans: readonly FiringSpan[]) {
    this.#config = config;
    this.#spans = [...spans].sort((a, b) => a.firedAt - b.firedAt);
  }

  /** Every notification sent up to `endMs`, in time order. */
  run(endMs: number): Notification[] {
    const arrivals = this.#spans.map((s) => ({ at: s.firedAt, span: s }));
    let i = 0;
    for (;;) {
      const nextArrival = arrivals[i]?.at ?? Number.POSITIVE_INFINITY;
      let nextGroup: Group | undefined;
      for (const g of this.#groups.values())
        if (!nextGroup || g.nextFlush < nextGroup.nextFlush) nextGroup = g;
      const nextFlush = nextGroup?.nextFlush ?? Number.POSITIVE_INFINITY;
      const t = Math.min(nextArrival, nextFlush);
      if (t > endMs || t === Number.POSITIVE_INFINITY) break;
      if (nextArrival <= nextFlush) {
        const { span } = arrivals[i++] ?? {};
        if (span) this.#insert(span);
      } else if (nextGroup) this.#flush(nextGroup, t);
    }
    return this.#out;
  }

  #insert(span: FiringSpan): void {
    for (const route of matchRoutes(this.#config.route, span.labels)) {
      const labels = groupLabelsOf(route, span.labels);
      const key = `${route.id}:${labelKey(labels)}`;
      let group = this.#groups.get(key);
      if (!group) {
        group = { key, route, labels, alerts: new Map(), nextFlush: span.firedAt + route.groupWaitMs };
        this.#groups.set(key, group);
      }
      group.alerts.set(labelKey(span.labels), span);
    }
  }

  #inhibited(labels: Readonly<Record<string, string>>, t: number): boolean {
    return this.#config.inhibitRules.some((r) => this.#mutes(r, labels, t));
  }

  #mutes(rule: InhibitRule, labels: Readonly<Record<string, string>>, t: number): boolean {
    if (!matchesAll(rule.target, labels)) return false;
    const twoSided = matchesAll(rule.source, labels);
    return this.#spans.some(
      (s) =>
        firingAt(s, t) &&
        matchesAll(rule.source, s.labels) &&
        !(twoSided && matchesAll(rule.target, s.labels)) &&
        rule.equal.every((n) => (s.labels[n] ?? '') === (labels[n] ?? '')),
    );
  }

  #flush(group: Group, t: number): void {
    const firing: FiringSpan[] = [];
    const resolved: FiringSpan[] = [];
    for (const s of group.alerts.values()) {
      if (this.#inhibited(s.labels, t)) continue;
      (firingAt(s, t) ? firing : resolved).push(s);
    }
    const receiver = group.route.receiver;
    const logKey = `${group.key}|${receiver}`;
    const entry = this.#log.get(logKey);
    const firingKeys = new Set(firing.map((s) => labelKey(s.labels)));
    const resolvedKeys = new Set(resolved.map((s) => labelKey(s.labels)));
    const sendResolved = this.#config.sendResolved.has(receiver);
    if (
      firing.length + resolved.length > 0 &&
      this.#needsUpdate(entry, {
        firingKeys,
        resolvedKeys,
        sendResolved,
        t,
        repeatMs: group.route.repeatIntervalMs,
      })
    ) {
      if (firing.length > 0 || sendResolved)
        this.#out.push({
          at: t,
          receiver,
          group: group.key,
          groupLabels: group.labels,
          firing: firing.map((s) => s.labels),
          resolved: sendResolved ? resolved.map((s) => s.labels) : [],
        });
      this.#log.set(logKey, { firing: firingKeys, resolved: resolvedKeys, at: t });
    }
    // Resolved alerts leave the group once flushed (muted ones too), as in Alertmanager.
    for (const [key, s] of group.alerts) if (!firingAt(s, t)) group.alerts.delete(key);
    if (group.alerts.size === 0) this.#groups.delete(group.key);
    else group.nextFlush = t + group.route.groupIntervalMs;
  }

  #needsUpdate(
    entry: LogEntry | undefined,
    now: {
      readonly firingKeys: ReadonlySet<string>;
      readonly resolvedKeys: ReadonlySet<string>;
      readonly sendResolved: boolean;
      readonly t: number;
      readonly repeatMs: number;
    },
  ): boolean {
    if (entry === undefined) return now.firingKeys.size > 0;
    for (const k of now.firingKeys) if (!entry.firing.has(k)) return true;
    if (now.firingKeys.size === 0) return entry.firing.size > 0;
    if (now.sendResolved) for (const k of now.resolvedKeys) if (!entry.resolved.has(k)) return true;
    return entry.at < now.t - now.repeatMs;
  }
}
