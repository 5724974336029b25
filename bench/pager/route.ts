/**
 * The parts of an Alertmanager configuration (0.25) that decide notifications: the route tree
 * (matchers, `continue`, group_by, group_wait, group_interval, repeat_interval, receiver) and the
 * inhibit rules, parsed from the YAML a user would load.
 */
import { parse } from 'yaml';

/** One label matcher: `name op "value"`. */
export interface Matcher {
  readonly name: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

/** A route with its inherited settings resolved. */
export interface Route {
  readonly matchers: readonly Matcher[];
  readonly receiver: string;
  /** Label names, or `...` for every label. */
  readonly groupBy: readonly string[];
  readonly groupWaitMs: number;
  readonly groupIntervalMs: number;
  readonly repeatIntervalMs: number;
  readonly continue: boolean;
  readonly routes: readonly Route[];
  /** Position in the tree, part of an aggregation group's key. */
  readonly id: string;
}

/** One inhibit rule. */
export interface InhibitRule {
  readonly source: readonly Matcher[];
  readonly target: readonly Matcher[];
  readonly equal: readonly string[];
}

/** What the model needs of an Alertmanager configuration. */
export interface AlertmanagerConfig {
  readonly route: Route;
  readonly inhibitRules: readonly InhibitRule[];
  /** Receivers whose webhooks send resolved notifications. */
  readonly sendResolved: ReadonlySet<string>;
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** A Prometheus duration (`1h30m`, `30s`) in ms. */
export function durationMs(text: string): number {
  let total = 0;
  const re = /(\d+)(ms|s|m|h|d|w)/g;
  let rest = text.trim();
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? 0);
    rest = rest.replace(m[0], '');
  }
  if (rest !== '' || text.trim() === '') throw new Error(`not a duration: ${text}`);
  return total;
}

/** Parses one matcher string, e.g. `alertname =~ "A|B"` or `severity = critical`. */
export function parseMatcher(text: string): Matcher {
  const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*$/.exec(text);
  if (!m) throw new Error(`not a matcher: ${text}`);
  let value = m[3] ?? '';
  if (value.startsWith('"') && value.endsWith('"')) value = JSON.parse(value) as string;
  return { name: m[1] ?? '', op: m[2] as Matcher['op'], value };
}

/** Whether a label set satisfies every matcher (a missing label is the empty string). */
export function matchesAll(matchers: readonly Matcher[], labels: Readonly<Record<string, string>>): boolean {
  return matchers.every((m) => {
    const v = labels[m.name] ?? '';
    if (m.op === '=') return v === m.value;
    if (m.op === '!=') return v !== m.value;
    const full = new RegExp(`^(?:${m.value})$`).test(v);
    return m.op === '=~' ? full : !full;
  });
}

type RawRoute = {
  matchers?: string[];
  match?: Record<string, string>;
  match_re?: Record<string, string>;
  receiver?: string;
  group_by?: string[];
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  continue?: boolean;
  routes?: RawRoute[];
};

function matchersOf(raw: {
  matchers?: string[];
  match?: Record<string, string>;
  match_re?: Record<string, string>;
}) {
  return [
    ...(raw.matchers ?? []).map(parseMatcher),
    ...Object.entries(raw.match ?? {}).map(([name, value]) => ({ name, op: '=' as const, value })),
    ...Object.entries(raw.match_re ?? {}).map(([name, value]) => ({ name, op: '=~' as const, value })),
  ];
}

function buildRoute(raw: RawRoute, parent: Route | undefined, id: string): Route {
  const base = {
    matchers: matchersOf(raw),
    receiver: raw.receiver ?? parent?.receiver ?? '',
    groupBy: raw.group_by ?? parent?.groupBy ?? [],
    groupWaitMs: raw.group_wait ? durationMs(raw.group_wait) : (parent?.groupWaitMs ?? 30_000),
    groupIntervalMs: raw.group_interval
      ? durationMs(raw.group_interval)
      : (parent?.groupIntervalMs ?? 300_000),
    repeatIntervalMs: raw.repeat_interval
      ? durationMs(raw.repeat_interval)
      : (parent?.repeatIntervalMs ?? 4 * 3_600_000),
    continue: raw.continue ?? false,
    id,
  };
  const route: Route = { ...base, routes: [] };
  return { ...route, routes: (raw.routes ?? []).map((r, i) => buildRoute(r, route, `${id}/${i}`)) };
}

/** Parses an Alertmanager YAML configuration. */
export function parseAlertmanagerConfig(yamlText: string): AlertmanagerConfig {
  const doc = parse(yamlText) as {
    route: RawRoute;
    inhibit_rules?: Array<{
      source_matchers?: string[];
      target_matchers?: string[];
      source_match?: Record<string, string>;
      target_match?: Record<string, string>;
      equal?: string[];
    }>;
    receivers?: Array<{ name: string; webhook_configs?: Array<{ send_resolved?: boolean }> }>;
  };
  const sendResolved = new Set<string>();
  for (const r of doc.receivers ?? [])
    if ((r.webhook_configs ?? []).some((w) => w.send_resolved !== false)) sendResolved.add(r.name);
  return {
    route: buildRoute(doc.route, undefined, 'root'),
    inhibitRules: (doc.inhibit_rules ?? []).map((r) => ({
      source: matchersOf({ matchers: r.source_matchers, match: r.source_match }),
      target: matchersOf({ matchers: r.target_matchers, match: r.target_match }),
      equal: r.equal ?? [],
    })),
    sendResolved,
  };
}

/** The routes an alert is dispatched to (Alertmanager's Route.Match: depth first, `continue`). */
export function matchRoutes(route: Route, labels: Readonly<Record<string, string>>): Route[] {
  if (!matchesAll(route.matchers, labels)) return [];
  const out: Route[] = [];
  for (const child of route.routes) {
    const hit = matchRoutes(child, labels);
    out.push(...hit);
    if (hit.length > 0 && !child.continue) break;
  }
  return out.length > 0 ? out : [route];
}
