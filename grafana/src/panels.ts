/**
 * Small typed builders for panels. A builder returns a {@link PanelSpec}: a panel without its id
 * and grid position, which {@link dashboard} assigns while laying panels out left to right.
 */
import type { DatasourceRef, FieldDefaults, Link, Override, Panel, Target, Transformation } from './model.ts';

/** The `datasource` template variable, which every panel and variable queries through. */
export const DS: DatasourceRef = { type: 'prometheus', uid: `\${datasource}` };

/** A query and its legend. */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
}

/** A panel before layout: a width and height instead of a grid position. */
export type PanelSpec = Omit<Panel, 'id' | 'gridPos'> & { readonly w: number; readonly h: number };

/** A section header before layout. */
export interface RowSpec {
  readonly type: 'row';
  readonly title: string;
}

/** What every panel builder takes. */
export interface Common {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly queries: readonly Query[];
  readonly w?: number;
  readonly h?: number;
  readonly min?: number;
  readonly max?: number;
  readonly decimals?: number;
  readonly thresholds?: ReadonlyArray<readonly [string, number | null]>;
  readonly mappings?: readonly unknown[];
  readonly links?: readonly Link[];
}

/** A query shorthand. */
export function q(expr: string, legend = ''): Query {
  return { expr, legend };
}

/** A section header. */
export function row(title: string): RowSpec {
  return { type: 'row', title };
}

function targets(queries: readonly Query[], instant: boolean, format: Target['format']): Target[] {
  return queries.map((query, i) => ({
    refId: String.fromCharCode(65 + i),
    datasource: DS,
    expr: query.expr,
    legendFormat: query.legend ?? '',
    instant,
    range: !instant,
    format,
    editorMode: 'code',
  }));
}

function defaults(c: Common, extra: Partial<FieldDefaults> = {}): FieldDefaults {
  return {
    unit: c.unit,
    ...(c.decimals !== undefined ? { decimals: c.decimals } : {}),
    ...(c.min !== undefined ? { min: c.min } : {}),
    ...(c.max !== undefined ? { max: c.max } : {}),
    thresholds: {
      mode: 'absolute',
      steps: (c.thresholds ?? [['green', null]]).map(([color, value]) => ({ color, value })),
    },
    ...(c.mappings ? { mappings: c.mappings } : {}),
    ...(c.links ? { links: c.links } : {}),
    ...extra,
  };
}

/** A single big number per series (last value). */
export function stat(c: Common & { readonly textMode?: 'auto' | 'value_and_name' | 'name' }): PanelSpec {
  return {
    type: 'stat',
    title: c.title,
    description: c.description,
    datasource: DS,
    w: c.w ?? 4,
    h: c.h ?? 4,
    fieldConfig: {
      defaults: defaults(c, { color: { mode: c.thresholds ? 'thresholds' : 'fixed' } }),
      overrides: [],
    },
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'value',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      textMode: c.textMode ?? 'auto',
    },
    targets: targets(c.queries, true, 'time_series'),
  };
}

/** Lines over time, with a table legend showing the last and the minimum value. */
export function timeseries(c: Common & { readonly stack?: boolean }): PanelSpec {
  return {
    type: 'timeseries',
    title: c.title,
    description: c.description,
    datasource: DS,
    w: c.w ?? 12,
    h: c.h ?? 8,
    fieldConfig: {
      defaults: defaults(c, {
        color: { mode: 'palette-classic' },
        custom: {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: c.stack ? 30 : 0,
          showPoints: 'never',
          spanNulls: false,
          stacking: { mode: c.stack ? 'normal' : 'none', group: 'A' },
        },
      }),
      overrides: [],
    },
    options: {
      legend: {
        displayMode: 'table',
        placement: 'bottom',
        showLegend: true,
        calcs: ['lastNotNull', 'min', 'max'],
      },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: targets(c.queries, false, 'time_series'),
  };
}

/** One column of a {@link table}: an instant query whose value becomes the column. */
export interface Column {
  readonly name: string;
  readonly expr: string;
  readonly unit: string;
}

/** A label shown as a table column, optionally renamed and linked. */
export interface LabelColumn {
  readonly label: string;
  readonly name?: string;
  readonly links?: readonly Link[];
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

function valueField(columns: readonly Column[], i: number): string {
  return columns.length === 1 ? 'Value' : `Value #${String.fromCharCode(65 + i)}`;
}

/**
 * A table with one row per label set and one column per instant query: the queries are merged
 * on their labels, then only the listed labels and the value columns are kept, renamed and ordered.
 */
export function table(t: TableOptions): PanelSpec {
  const values = t.hideValues ? [] : t.columns.map((_, i) => valueField(t.columns, i));
  const keep = [...t.labels.map((l) => l.label), ...values];
  const rename: Record<string, string> = {};
  const order: Record<string, number> = {};
  keep.forEach((field, i) => {
    order[field] = i;
  });
  for (const l of t.labels) if (l.name) rename[l.label] = l.name;
  t.columns.forEach((c, i) => {
    rename[valueField(t.columns, i)] = c.name;
  });
  const overrides: Override[] = [
    ...t.columns.map((c) => ({
      matcher: { id: 'byName' as const, options: c.name },
      properties: [{ id: 'unit', value: c.unit }],
    })),
    ...t.labels
      .filter((l) => l.links)
      .map((l) => ({
        matcher: { id: 'byName' as const, options: l.name ?? l.label },
        properties: [{ id: 'links', value: l.links }],
      })),
  ];
  const transformations: Transformation[] = [
    ...(t.columns.length > 1 ? [{ id: 'merge', options: {} }] : []),
    { id: 'filterFieldsByName', options: { include: { names: keep } } },
    ...(t.numericLabels?.length
      ? [
          {
            id: 'convertFieldType',
            options: {
              fields: {},
              conversions: t.numericLabels.map((f) => ({ targetField: f, destinationType: 'number' })),
            },
          },
        ]
      : []),
    { id: 'organize', options: { excludeByName: {}, indexByName: order, renameByName: rename } },
  ];
  return {
    type: 'table',
    title: t.title,
    description: t.description,
    datasource: DS,
    w: t.w ?? 24,
    h: t.h ?? 9,
    fieldConfig: {
      // Label columns (e.g. a numeric position) must not inherit a value unit; each value
      // column gets its own unit through an override.
      defaults: { unit: 'none', custom: { align: 'auto', filterable: true } },
      overrides,
    },
    options: {
      showHeader: true,
      cellHeight: 'sm',
      footer: { show: false, reducer: ['sum'], fields: '' },
      ...(t.sortBy ? { sortBy: [{ displayName: t.sortBy.column, desc: t.sortBy.desc }] } : {}),
    },
    targets: targets(
      t.columns.map((c) => ({ expr: c.expr })),
      true,
      'table',
    ),
    transformations,
  };
}
