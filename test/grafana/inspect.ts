/**
 * Reading generated dashboards the way Grafana does: panels with queries, variable references,
 * links, and substitution of template variables into PromQL.
 */
import type { Dashboard, Panel, Variable } from '../../grafana/src/model.ts';

/** Grafana's built-in variables, which a dashboard need not define. */
export const BUILTIN = new Set([
  '__rate_interval',
  '__interval',
  '__interval_ms',
  '__range',
  '__range_s',
  '__data',
  '__url_time_range',
  '__field',
  '__series',
  '__value',
  '__from',
  '__to',
]);

/** The query panels of a dashboard (rows excluded). */
export function queryPanels(d: Dashboard): Panel[] {
  return d.panels.filter((p): p is Panel => p.type !== 'row');
}

/** Names of the variables referenced as `$name`, `${name}`, `${name:format}` or `[[name]]`. */
export function variableRefs(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\$\{(\w+)(?:[.:][^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]/g)) {
    names.add((m[1] ?? m[2] ?? m[3])!);
  }
  return [...names];
}

/** Every link URL of a dashboard: header links and the data links of panels and overrides. */
export function linkUrls(d: Dashboard): string[] {
  const urls = d.links.map((l) => l.url);
  for (const p of queryPanels(d)) {
    for (const l of p.fieldConfig.defaults.links ?? []) urls.push(l.url);
    for (const o of p.fieldConfig.overrides) {
      for (const prop of o.properties) {
        if (prop.id === 'links') for (const l of prop.value as Array<{ url: string }>) urls.push(l.url);
      }
    }
  }
  return urls;
}

/** The `label_values(selector, label)` parts of a query variable. */
export function parseLabelValues(v: Variable): { selector: string; label: string } {
  const m = /^label_values\((.+),\s*(\w+)\)$/.exec(v.type === 'query' ? v.query : '');
  if (!m) throw new Error(`variable ${v.name}: not a label_values query`);
  return { selector: m[1]!, label: m[2]! };
}

/** Escapes a value for a PromQL double-quoted string. */
function quoted(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/**
 * Replaces template variables in `expr` as Grafana's Prometheus data source does for a single
 * selected value; `$__rate_interval` and the other interval variables become `intervals`.
 */
export function substitute(expr: string, values: Record<string, string>, interval = '30s'): string {
  return expr.replace(
    /\$\{(\w+)(?::[^}]*)?\}|\$(\w+)/g,
    (whole, a: string | undefined, b: string | undefined) => {
      const name = (a ?? b)!;
      if (name === '__rate_interval' || name === '__interval' || name === '__range') return interval;
      const value = values[name];
      return value === undefined ? whole : quoted(value);
    },
  );
}
