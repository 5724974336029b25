/**
 * Prometheus queries of panels, variables and annotations. Everything goes through the
 * `datasource` template variable, so the dashboards carry no data source uid of any instance.
 */
import type { DataSourceRef } from '@grafana/grafana-foundation-sdk/common';
import {
  DataqueryBuilder,
  PromQueryFormat,
  QueryEditorMode,
} from '@grafana/grafana-foundation-sdk/prometheus';
import type * as units from '@grafana/grafana-foundation-sdk/units';

/** The `datasource` template variable, which every panel, query and variable uses. */
export const DS: DataSourceRef = { type: 'prometheus', uid: `\${datasource}` };

/** A Grafana unit id (`percentunit`, `s`, `short`, ...): a typo fails the type check. */
export type Unit = Extract<(typeof units)[keyof typeof units], string>;

/** A query and its legend. */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
  /** Also fetch the series' exemplars (shown as points; a click follows the data source's link). */
  readonly exemplar?: boolean;
}

/** A query shorthand. */
export function q(expr: string, legend = ''): Query {
  return { expr, legend };
}

/** How a panel runs its queries: instant (a value per series) or over the range. */
export interface QueryMode {
  readonly instant: boolean;
  readonly format: PromQueryFormat;
}

/** The panel targets of `queries`, with refIds A, B, C, ... */
export function targets(queries: readonly Query[], mode: QueryMode): DataqueryBuilder[] {
  return queries.map((query, i) => {
    const t = new DataqueryBuilder()
      .refId(String.fromCharCode(65 + i))
      .datasource(DS)
      .expr(query.expr)
      .legendFormat(query.legend ?? '')
      .format(mode.format)
      .editorMode(QueryEditorMode.Code);
    if (query.exemplar) t.exemplar(true);
    return mode.instant ? t.instant() : t.range();
  });
}

/** Instant queries giving one value per series (stat panels). */
export const INSTANT: QueryMode = { instant: true, format: PromQueryFormat.TimeSeries };
/** Range queries (time series panels). */
export const RANGE: QueryMode = { instant: false, format: PromQueryFormat.TimeSeries };
/** Instant queries as table rows (table panels). */
export const TABLE: QueryMode = { instant: true, format: PromQueryFormat.Table };
