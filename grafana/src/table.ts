/**
 * Tables with one row per label set and one column per instant query: the queries are merged on
 * their labels, then only the listed labels and the value columns are kept, renamed and ordered.
 */
import {
  FieldTextAlignment,
  TableCellHeight,
  TableFooterOptionsBuilder,
  TableSortByFieldStateBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import type { DataTransformerConfig } from '@grafana/grafana-foundation-sdk/dashboard';
import * as tablePanel from '@grafana/grafana-foundation-sdk/table';
import type { DataLink } from './links.ts';
import { DS, TABLE, targets, type Unit } from './query.ts';

/** One column of a {@link table}: an instant query whose value becomes the column. */
export interface Column {
  readonly name: string;
  readonly expr: string;
  readonly unit: Unit;
}

/** A label shown as a table column, optionally renamed and linked. */
interface LabelColumn {
  readonly label: string;
  readonly name?: string;
  readonly links?: readonly DataLink[];
}

/** Options of {@link table}. */
export interface TableOptions {
  readonly title: string;
  readonly description: string;
  readonly labels: readonly LabelColumn[];
  readonly columns: readonly Column[];
  readonly sortBy?: { readonly column: string; readonly desc: boolean };
  /** Label columns holding numbers (e.g. `position`), converted so that they sort numerically. */
  readonly numericLabels?: readonly string[];
  /** Show only the labels, e.g. of an info metric whose value is always 1. */
  readonly hideValues?: boolean;
  readonly w?: number;
  readonly h?: number;
}

/** The field name Grafana gives the value of query `i` (a single query's is plain "Value"). */
function valueField(columns: readonly Column[], i: number): string {
  return columns.length === 1 ? 'Value' : `Value #${String.fromCharCode(65 + i)}`;
}

function transformations(t: TableOptions): DataTransformerConfig[] {
  const values = t.hideValues ? [] : t.columns.map((_, i) => valueField(t.columns, i));
  const keep = [...t.labels.map((l) => l.label), ...values];
  const indexByName = Object.fromEntries(keep.map((field, i) => [field, i]));
  const renameByName: Record<string, string> = {};
  for (const l of t.labels) if (l.name) renameByName[l.label] = l.name;
  t.columns.forEach((c, i) => {
    renameByName[valueField(t.columns, i)] = c.name;
  });
  const conversions = (t.numericLabels ?? []).map((f) => ({ targetField: f, destinationType: 'number' }));
  return [
    ...(t.columns.length > 1 ? [{ id: 'merge', options: {} }] : []),
    { id: 'filterFieldsByName', options: { include: { names: keep } } },
    ...(conversions.length ? [{ id: 'convertFieldType', options: { fields: {}, conversions } }] : []),
    { id: 'organize', options: { excludeByName: {}, indexByName, renameByName } },
  ];
}

/** A table of labels and instant-query columns; each value column gets its own unit. */
export function table(t: TableOptions): tablePanel.PanelBuilder {
  const b = new tablePanel.PanelBuilder()
    .title(t.title)
    .description(t.description)
    .datasource(DS)
    .span(t.w ?? 24)
    .height(t.h ?? 9)
    // Label columns (e.g. a numeric position) must not inherit a value unit.
    .unit('none')
    .align(FieldTextAlignment.Auto)
    .filterable(true)
    .showHeader(true)
    .cellHeight(TableCellHeight.Sm)
    .footer(new TableFooterOptionsBuilder().show(false).reducer(['sum']))
    .targets(
      targets(
        t.columns.map((c) => ({ expr: c.expr })),
        TABLE,
      ),
    )
    .transformations(transformations(t));
  for (const c of t.columns) b.overrideByName(c.name, [{ id: 'unit', value: c.unit }]);
  for (const l of t.labels)
    if (l.links) b.overrideByName(l.name ?? l.label, [{ id: 'links', value: l.links }]);
  if (t.sortBy)
    b.sortBy([new TableSortByFieldStateBuilder().displayName(t.sortBy.column).desc(t.sortBy.desc)]);
  return b;
}
