/**
 * Reading generated dashboards the way Grafana does: from their JSON text, with panels, queries,
 * variable references, links, and substitution of template variables into PromQL.
 */
import { renderDashboards } from '../../grafana/src/index.ts';

/** A data source reference. */
export interface DatasourceJson {
  readonly type?: string;
  readonly uid?: string;
}

/** A panel query. */
interface TargetJson {
  readonly refId: string;
  readonly expr: string;
  readonly legendFormat?: string;
  readonly datasource?: DatasourceJson;
}

/** A field override: a matcher and the properties it sets. */
interface OverrideJson {
  readonly matcher: { readonly id: string; readonly options?: unknown };
  readonly properties: ReadonlyArray<{ readonly id: string; readonly value?: unknown }>;
}

/** A panel or a row, as far as these tests read it. */
export interface PanelJson {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly datasource?: DatasourceJson;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly TargetJson[];
  readonly fieldConfig?: {
    readonly defaults: { readonly unit?: string; readonly links?: ReadonlyArray<{ readonly url: string }> };
    readonly overrides: readonly OverrideJson[];
  };
  readonly transformations?: ReadonlyArray<{
    readonly id: string;
    readonly options: Record<string, unknown>;
  }>;
  /** The panels of a collapsed row. */
  readonly panels?: readonly PanelJson[];
}

/** A template variable. */
export interface VariableJson {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly query?: string;
  readonly datasource?: DatasourceJson;
  readonly refresh?: number;
  readonly includeAll?: boolean;
  readonly allValue?: string;
}

/** A dashboard, as Grafana loads it from the committed file. */
export interface DashboardJson {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly templating: { readonly list: readonly VariableJson[] };
  readonly annotations: { readonly list?: ReadonlyArray<{ readonly name: string; readonly expr?: string }> };
  readonly links: ReadonlyArray<{
    readonly title: string;
    readonly url: string;
    readonly placement?: string;
  }>;
  readonly panels: readonly PanelJson[];
}

/** A query panel: one with targets. */
export type QueryPanel = PanelJson & { readonly targets: readonly TargetJson[] };

/** The generated dashboards by file name, parsed from the exact text that is committed. */
export function generatedDashboards(): Array<{ readonly file: string; readonly dashboard: DashboardJson }> {
  return [...renderDashboards()].map(([file, text]) => ({
    file,
    dashboard: JSON.parse(text) as DashboardJson,
  }));
}

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

/** Every panel of a dashboard, rows included, with the panels inside collapsed rows. */
function allPanels(d: DashboardJson): PanelJson[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** The query panels of a dashboard (rows excluded). */
export function queryPanels(d: DashboardJson): QueryPanel[] {
  return allPanels(d).filter((p): p is QueryPanel => p.type !== 'row');
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
export function linkUrls(d: DashboardJson): string[] {
  const urls = d.links.map((l) => l.url);
  for (const p of queryPanels(d)) {
    for (const l of p.fieldConfig?.defaults.links ?? []) urls.push(l.url);
    for (const o of p.fieldConfig?.overrides ?? []) {
      for (const prop of o.properties) {
        if (prop.id === 'links') for (const l of prop.value as Array<{ url: string }>) urls.push(l.url);
      }
    }
  }
  return urls;
}

/** The `label_values(selector, label)` parts of a query variable. */
export function parseLabelValues(v: VariableJson): { selector: string; label: string } {
  const m = /^label_values\((.+),\s*(\w+)\)$/.exec(v.type === 'query' ? (v.query ?? '') : '');
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
