/**
 * The shipped rules as the bench evaluates them: the rule files that prometheus.example.yml loads
 * (so an opt-in file stays out, as it does for a user), read at run time. Each alert expression
 * gets the recording rules it reads inlined (recursively), so that one range query per alert
 * gives its value at every evaluation; Prometheus itself reads the recorded series, evaluated up
 * to one interval earlier.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { AlertRule } from './alert-state.ts';
import { durationMs } from './route.ts';

/** An alerting rule with its expression ready for a range query. */
export interface ShippedAlert extends AlertRule {
  /** The expression with recording rules inlined. */
  readonly expr: string;
  /** Its group's evaluation interval. */
  readonly intervalMs: number;
  readonly group: string;
  readonly file: string;
}

interface RuleDoc {
  groups: Array<{
    name: string;
    interval?: string;
    rules: Array<{
      record?: string;
      alert?: string;
      expr: string | number;
      for?: string;
      keep_firing_for?: string;
      labels?: Record<string, string>;
    }>;
  }>;
}

/** The rule files prometheus.example.yml loads, as paths. */
export function defaultRuleFiles(prometheusConfig: string): string[] {
  const doc = parse(readFileSync(prometheusConfig, 'utf8')) as { rule_files?: string[] };
  return (doc.rule_files ?? []).map((f) => path.resolve(path.dirname(prometheusConfig), f));
}

/** The global evaluation interval of a Prometheus config (default 1m). */
export function evaluationIntervalMs(prometheusConfig: string): number {
  const doc = parse(readFileSync(prometheusConfig, 'utf8')) as { global?: { evaluation_interval?: string } };
  return durationMs(doc.global?.evaluation_interval ?? '1m');
}

const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;

const SELECTOR = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?/g;

/**
 * The equality matchers of every selector of each metric name in `exprs`: a sample of that name
 * is needed when it has the labels of at least one of them (an empty one: every sample). Other
 * matchers are ignored, which keeps a superset.
 */
export function selectorsByName(exprs: readonly string[]): Map<string, Array<Record<string, string>>> {
  const out = new Map<string, Array<Record<string, string>>>();
  for (const expr of exprs) {
    // Label names of by/on lists come out as names without matchers: no family has such a name.
    for (const m of expr.matchAll(SELECTOR)) {
      const name = m[1] ?? '';
      const eq: Record<string, string> = {};
      for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"]*)"/g))
        eq[l[1] ?? ''] = l[2] ?? '';
      out.set(name, [...(out.get(name) ?? []), eq]);
    }
  }
  return out;
}

/**
 * A recording rule read over a range (`max_over_time(rule[7d])`) becomes, inlined, a range over
 * an expression, which PromQL only allows as a subquery: `(expr)[7d:1m]`, stepped at the rule
 * group's interval, where Prometheus would have recorded the rule.
 */
export function asSubqueries(expr: string, intervalMs: number): string {
  return expr.replace(
    /\)\[(\d+[smhdwy])\]/g,
    (_, range: string) => `)[${range}:${Math.round(intervalMs / 1000)}s]`,
  );
}

/** Every alert of the files, with inlined expressions; and every identifier the rules use. */
export function loadAlerts(
  files: readonly string[],
  globalIntervalMs: number,
): { alerts: ShippedAlert[]; selectors: Map<string, Array<Record<string, string>>> } {
  const docs = files.map((file) => ({ file, doc: parse(readFileSync(file, 'utf8')) as RuleDoc }));
  const records = new Map<string, string>();
  for (const { doc } of docs)
    for (const g of doc.groups)
      for (const r of g.rules) if (r.record) records.set(r.record, String(r.expr).trim());
  const inline = (expr: string, depth = 0): string => {
    if (depth > 20) throw new Error('recording rules nest too deep');
    return expr.replace(NAME, (name) => {
      const def = records.get(name);
      return def === undefined ? name : `(${inline(def, depth + 1)})`;
    });
  };
  const alerts: ShippedAlert[] = [];
  for (const { file, doc } of docs) {
    for (const g of doc.groups) {
      for (const r of g.rules) {
        if (!r.alert) continue;
        const intervalMs = g.interval ? durationMs(g.interval) : globalIntervalMs;
        const inlined = asSubqueries(inline(String(r.expr)), intervalMs);
        alerts.push({
          alert: r.alert,
          expr: inlined,
          forMs: r.for ? durationMs(r.for) : 0,
          keepFiringForMs: r.keep_firing_for ? durationMs(r.keep_firing_for) : 0,
          labels: r.labels ?? {},
          intervalMs,
          group: g.name,
          file: path.basename(file),
        });
      }
    }
  }
  return { alerts, selectors: selectorsByName(alerts.map((a) => a.expr)) };
}
