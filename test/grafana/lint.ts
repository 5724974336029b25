/**
 * A dashboard linter after the rules of Grafana's dashboard-linter (grafana/dashboard-linter,
 * `lint/rule_*.go`), applied to the dashboard JSON as Grafana loads it. Each rule returns
 * findings naming the rule, the dashboard and the panel, variable or path at fault.
 */
import { defaultDashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import * as units from '@grafana/grafana-foundation-sdk/units';
import { type DashboardJson, type DatasourceJson, queryPanels } from './inspect.ts';

/** One rule violation. */
export interface Finding {
  readonly rule: string;
  readonly message: string;
}

/** The only data source reference allowed anywhere: the `datasource` template variable. */
const DS_REF: DatasourceJson = { type: 'prometheus', uid: `\${datasource}` };

/** Grafana's unit ids, from the SDK's list. */
const UNITS = new Set((Object.values(units) as unknown[]).filter((u): u is string => typeof u === 'string'));
/** Panel types that display values and so need a unit (as the linter's panel-units-rule). */
const VALUE_PANELS = new Set(['stat', 'gauge', 'bargauge', 'timeseries', 'table', 'graph', 'singlestat']);
/** Range-vector functions whose range must be `$__rate_interval`. */
const RATE_CALL = /\b(rate|irate|increase)\s*\(/g;
const LABEL_VALUES = /^label_values\((.+),\s*(\w+)\)$/;
const UID_FORMAT = /^[A-Za-z0-9_-]{1,40}$/;

type Rule = (d: DashboardJson) => string[];

/** Replaces PromQL string literals by `""`, so that brackets and parentheses inside them do not count. */
function withoutStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
}

/** The argument text of every rate/irate/increase call in `expr`, and `expr` with those arguments removed. */
function rateCalls(expr: string): { calls: string[]; rest: string } {
  const text = withoutStrings(expr);
  const calls: string[] = [];
  let rest = '';
  let from = 0;
  for (const m of text.matchAll(RATE_CALL)) {
    const open = m.index + m[0].length;
    if (open <= from) continue;
    let depth = 1;
    let i = open;
    for (; i < text.length && depth > 0; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
    calls.push(text.slice(open, i - 1));
    rest += text.slice(from, open);
    from = i - 1;
  }
  return { calls, rest: rest + text.slice(from) };
}

const sameRef = (ds: unknown): boolean =>
  typeof ds === 'object' && ds !== null && JSON.stringify(ds) === JSON.stringify(DS_REF);

/** Paths of every `datasource` value in the dashboard that is not the variable reference. */
function foreignDatasources(node: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(node)) {
    node.forEach((x, i) => {
      foreignDatasources(x, `${path}[${i}]`, out);
    });
  } else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'datasource' && !sameRef(v)) out.push(`${path}.datasource = ${JSON.stringify(v)}`);
      foreignDatasources(v, `${path}.${k}`, out);
    }
  }
  return out;
}

const RULES: Record<string, Rule> = {
  'template-datasource-rule': (d) => {
    const ds = d.templating.list.filter((v) => v.type === 'datasource');
    const v = ds[0];
    if (ds.length !== 1 || !v) return [`expected one datasource variable, found ${ds.length}`];
    const bad = [];
    if (v.name !== 'datasource' || v.label !== 'Data source')
      bad.push(`named ${v.name}/${v.label}, not datasource/Data source`);
    if (v.query !== 'prometheus') bad.push(`lists ${v.query} data sources, not prometheus`);
    return bad;
  },
  'panel-datasource-rule': (d) => [
    ...queryPanels(d)
      .filter((p) => !sameRef(p.datasource) || p.targets.some((t) => !sameRef(t.datasource)))
      .map((p) => `panel "${p.title}" or one of its targets does not use \${datasource}`),
    ...foreignDatasources(d, '$', []).map((path) => `hard-coded data source at ${path}`),
  ],
  'panel-title-description-rule': (d) =>
    queryPanels(d)
      .filter((p) => !p.title.trim() || (p.description ?? '').trim().length < 20)
      .map((p) => `panel "${p.title}" has no title or no description`),
  'panel-units-rule': (d) =>
    queryPanels(d)
      .filter((p) => VALUE_PANELS.has(p.type))
      .flatMap((p) => {
        const overrides = (p.fieldConfig?.overrides ?? []).flatMap((o) =>
          o.properties.filter((x) => x.id === 'unit').map((x) => String(x.value)),
        );
        return [p.fieldConfig?.defaults.unit ?? '', ...overrides]
          .filter((u) => !UNITS.has(u))
          .map((u) => `panel "${p.title}" has no or an invalid unit: "${u}"`);
      }),
  'panel-id-rule': (d) => {
    const ids = d.panels.flatMap((p) => [p, ...(p.panels ?? [])]).map((p) => p.id);
    const bad = ids.filter((id, i) => !Number.isInteger(id) || id < 1 || ids.indexOf(id) !== i);
    return bad.length ? [`panel ids must be unique positive integers; offending: ${bad.join(', ')}`] : [];
  },
  'target-rate-interval-rule': (d) =>
    queryPanels(d).flatMap((p) =>
      p.targets.flatMap((t) =>
        rateCalls(t.expr)
          .calls.filter((arg) => !/^[^[]*\[\$__rate_interval\](?:\s+offset\s+\w+)?\s*$/.test(arg))
          .map((arg) => `panel "${p.title}" ${t.refId}: rate range is not [$__rate_interval] in (${arg})`),
      ),
    ),
  'target-counter-agg-rule': (d) =>
    queryPanels(d).flatMap((p) =>
      p.targets.flatMap((t) =>
        [...rateCalls(t.expr).rest.matchAll(/\b\w+_total\b/g)].map(
          (m) => `panel "${p.title}" ${t.refId}: counter ${m[0]} is not inside rate/irate/increase`,
        ),
      ),
    ),
  'template-label-promql-rule': (d) =>
    d.templating.list
      .filter((v) => v.type === 'query' && !LABEL_VALUES.test(v.query ?? ''))
      .map((v) => `variable ${v.name} does not use label_values(selector, label): ${v.query}`),
  'template-on-time-change-reload-rule': (d) =>
    d.templating.list
      .filter((v) => v.type === 'query' && v.refresh !== 2)
      .map((v) => `variable ${v.name} is not refreshed on time range change (refresh ${v.refresh})`),
  'dashboard-uid-rule': (d) =>
    UID_FORMAT.test(d.uid) ? [] : [`uid "${d.uid}" is not 1-40 of [A-Za-z0-9_-]`],
  'dashboard-schema-version-rule': (d) => {
    const current = defaultDashboard().schemaVersion;
    return d.schemaVersion === current
      ? []
      : [`schemaVersion ${d.schemaVersion}, the SDK's current is ${current}`];
  },
  'dashboard-links-header-rule': (d) =>
    d.links
      .filter((l) => l.placement === 'inControlsMenu')
      .map((l) => `link "${l.title}" is hidden in the controls menu instead of the header`),
};

/** Every finding of every rule on one dashboard. */
export function lintDashboard(d: DashboardJson): Finding[] {
  return Object.entries(RULES).flatMap(([rule, check]) =>
    check(d).map((message) => ({ rule, message: `${d.title}: ${message}` })),
  );
}

/** Rules across dashboards: uids unique. */
export function lintSet(all: readonly DashboardJson[]): Finding[] {
  const uids = all.map((d) => d.uid);
  return uids
    .filter((u, i) => uids.indexOf(u) !== i)
    .map((u) => ({ rule: 'dashboard-uid-rule', message: `uid ${u} is used by more than one dashboard` }));
}
