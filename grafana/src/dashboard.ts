/**
 * Dashboard-level builders: template variables, links between dashboards, and the layout that
 * turns panel specs into grid positions.
 */
import type { Dashboard, DashboardLink, GridPos, Link, Panel, RowPanel, Variable } from './model.ts';
import { DS, type PanelSpec, type RowSpec } from './panels.ts';

/** Stable uids: links and bookmarks depend on them, so they never change. */
export const UID = {
  overview: 'station-exporter-overview',
  line: 'station-exporter-line',
  station: 'station-exporter-station',
  health: 'station-exporter-health',
} as const;

/** The data source picker, limited to Prometheus data sources. */
export function datasourceVariable(): Variable {
  return {
    name: 'datasource',
    type: 'datasource',
    label: 'Data source',
    query: 'prometheus',
    current: {},
    hide: 0,
    refresh: 1,
    regex: '',
  };
}

/** Options of {@link labelValues}. */
export interface LabelValuesOptions {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** The series selector, e.g. `station_info{site="$site"}`; chaining comes from its matchers. */
  readonly selector: string;
  /** The label to list; defaults to `name`. */
  readonly of?: string;
  /** Several values at once, with an "All" entry matching everything. */
  readonly multi?: boolean;
}

/** A variable listing the values of a label, refreshed when the time range changes. */
export function labelValues(o: LabelValuesOptions): Variable {
  const query = `label_values(${o.selector}, ${o.of ?? o.name})`;
  return {
    name: o.name,
    type: 'query',
    label: o.label,
    description: o.description,
    datasource: DS,
    query,
    definition: query,
    current: {},
    hide: 0,
    refresh: 2,
    regex: '',
    sort: 1,
    multi: o.multi ?? false,
    includeAll: o.multi ?? false,
    // With "All", a match-everything regex keeps the query short instead of listing every value.
    ...(o.multi ? { allValue: '.*' } : {}),
  };
}

/** The `window` variable: windows present at any summary level (levels are configurable). */
export function windowVariable(): Variable {
  return labelValues({
    name: 'window',
    label: 'Window',
    description: 'Statistics window (the exporter `windows` setting), e.g. 1h, 24h, shift, today.',
    selector: '{__name__=~"station_(site_|line_|group_)?unique_output_units"}',
  });
}

/** Query parameters that carry the data source, the time range and the window to a linked dashboard. */
const CARRY = `\${datasource:queryparam}&\${window:queryparam}&\${__url_time_range}`;

/** A data link (table cell) to the line dashboard for the row's site and line. */
export function lineLink(): Link {
  return {
    title: `Open line \${__data.fields.site} / \${__data.fields.line}`,
    url: `/d/${UID.line}/line?${CARRY}&var-site=\${__data.fields.site}&var-line=\${__data.fields.line}`,
  };
}

/** A data link (table cell) to the station dashboard for the row's station, within `$site`/`$line`. */
export function stationLink(): Link {
  return {
    title: `Open station \${__data.fields.station}`,
    url: `/d/${UID.station}/station?${CARRY}&\${site:queryparam}&\${line:queryparam}&var-station=\${__data.fields.station}`,
  };
}

/** A header link to another dashboard; the current variables and time range come along. */
export function dashboardLink(title: string, uid: string, tooltip: string): DashboardLink {
  return {
    title,
    type: 'link',
    url: `/d/${uid}`,
    icon: 'dashboard',
    tooltip,
    includeVars: true,
    keepTime: true,
    asDropdown: false,
    targetBlank: false,
    tags: [],
  };
}

/** Options of {@link dashboard}. */
export interface DashboardOptions {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly Variable[];
  readonly links: readonly DashboardLink[];
  readonly panels: ReadonlyArray<PanelSpec | RowSpec>;
  readonly time?: string;
}

const GRID_WIDTH = 24;

/** Flows panels left to right into rows of the 24-column grid; a section header starts a new line. */
function layout(specs: ReadonlyArray<PanelSpec | RowSpec>): Array<Panel | RowPanel> {
  const out: Array<Panel | RowPanel> = [];
  let x = 0;
  let y = 0;
  let lineHeight = 0;
  const newline = () => {
    y += lineHeight;
    x = 0;
    lineHeight = 0;
  };
  for (const spec of specs) {
    const id = out.length + 1;
    if (spec.type === 'row') {
      newline();
      out.push({
        id,
        type: 'row',
        title: spec.title,
        collapsed: false,
        gridPos: pos(24, 1, 0, y),
        panels: [],
      });
      y += 1;
      continue;
    }
    if (x + spec.w > GRID_WIDTH) newline();
    const { w, h, ...panel } = spec;
    out.push({ ...panel, id, gridPos: pos(w, h, x, y) });
    x += w;
    lineHeight = Math.max(lineHeight, h);
  }
  return out;
}

function pos(w: number, h: number, x: number, y: number): GridPos {
  return { h, w, x, y };
}

/** Assembles a dashboard with the house defaults (shared crosshair, 1 m refresh, 6 h range). */
export function dashboard(o: DashboardOptions): Dashboard {
  return {
    uid: o.uid,
    title: o.title,
    description: o.description,
    tags: ['station-exporter'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '1m',
    time: { from: o.time ?? 'now-6h', to: 'now' },
    timezone: '',
    templating: { list: o.variables },
    annotations: { list: [] },
    links: o.links,
    panels: layout(o.panels),
  };
}
