/**
 * The subset of the Grafana dashboard JSON model (schemaVersion 39) that these dashboards use.
 * Plain data, so that the generated JSON is exactly what these objects serialise to.
 */

/** Every query and variable goes through the `datasource` template variable. */
export interface DatasourceRef {
  readonly type: 'prometheus';
  readonly uid: '${datasource}';
}

/** A panel's position on the 24-column grid. */
export interface GridPos {
  readonly h: number;
  readonly w: number;
  readonly x: number;
  readonly y: number;
}

/** One PromQL query of a panel. */
export interface Target {
  readonly refId: string;
  readonly datasource: DatasourceRef;
  readonly expr: string;
  readonly legendFormat: string;
  readonly instant: boolean;
  readonly range: boolean;
  readonly format: 'time_series' | 'table';
  readonly editorMode: 'code';
}

/** A link from a panel cell or a dashboard header to another dashboard. */
export interface Link {
  readonly title: string;
  readonly url: string;
  readonly targetBlank?: boolean;
}

/** A Grafana field override, e.g. a per-column unit in a table. */
export interface Override {
  readonly matcher: { readonly id: 'byName'; readonly options: string };
  readonly properties: ReadonlyArray<{ readonly id: string; readonly value: unknown }>;
}

/** Threshold steps; the first step's value is null (the base colour). */
export interface Thresholds {
  readonly mode: 'absolute';
  readonly steps: ReadonlyArray<{ readonly color: string; readonly value: number | null }>;
}

/** Field defaults shared by all panel types. */
export interface FieldDefaults {
  readonly unit: string;
  readonly decimals?: number;
  readonly min?: number;
  readonly max?: number;
  readonly thresholds?: Thresholds;
  readonly mappings?: readonly unknown[];
  readonly links?: readonly Link[];
  readonly color?: { readonly mode: string };
  readonly custom?: Record<string, unknown>;
}

/** A transformation step of a panel (merge, organize, ...). */
export interface Transformation {
  readonly id: string;
  readonly options: Record<string, unknown>;
}

/** A query panel, as written into the dashboard JSON. */
export interface Panel {
  readonly id: number;
  readonly type: 'stat' | 'timeseries' | 'table' | 'gauge';
  readonly title: string;
  readonly description: string;
  readonly datasource: DatasourceRef;
  readonly gridPos: GridPos;
  readonly fieldConfig: { readonly defaults: FieldDefaults; readonly overrides: readonly Override[] };
  readonly options: Record<string, unknown>;
  readonly targets: readonly Target[];
  readonly transformations?: readonly Transformation[];
}

/** A section header; rows hold no queries. */
export interface RowPanel {
  readonly id: number;
  readonly type: 'row';
  readonly title: string;
  readonly collapsed: false;
  readonly gridPos: GridPos;
  readonly panels: readonly [];
}

/** A template variable: the data source picker, a label_values query, or a fixed list. */
export type Variable =
  | {
      readonly name: 'datasource';
      readonly type: 'datasource';
      readonly label: string;
      readonly query: 'prometheus';
      readonly current: Record<string, never>;
      readonly hide: 0;
      readonly refresh: 1;
      readonly regex: '';
    }
  | {
      readonly name: string;
      readonly type: 'query';
      readonly label: string;
      readonly description: string;
      readonly datasource: DatasourceRef;
      readonly query: string;
      readonly definition: string;
      readonly current: Record<string, never>;
      readonly hide: 0;
      readonly refresh: 2;
      readonly regex: '';
      readonly sort: 1;
      readonly multi: boolean;
      readonly includeAll: boolean;
      readonly allValue?: string;
    };

/** A header link to another dashboard, carrying the time range and the variables. */
export interface DashboardLink {
  readonly title: string;
  readonly type: 'link';
  readonly url: string;
  readonly icon: 'dashboard';
  readonly tooltip: string;
  readonly includeVars: true;
  readonly keepTime: true;
  readonly asDropdown: false;
  readonly targetBlank: false;
  readonly tags: readonly [];
}

/** A whole dashboard. */
export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly editable: true;
  readonly graphTooltip: 1;
  readonly schemaVersion: 39;
  readonly version: 1;
  readonly refresh: string;
  readonly time: { readonly from: string; readonly to: string };
  readonly timezone: '';
  readonly templating: { readonly list: readonly Variable[] };
  readonly annotations: { readonly list: readonly [] };
  readonly links: readonly DashboardLink[];
  readonly panels: ReadonlyArray<Panel | RowPanel>;
}
