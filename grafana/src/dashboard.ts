/**
 * Assembles a dashboard with the SDK's DashboardBuilder and the house defaults. Panels flow left
 * to right over the 24-column grid; a row starts a new line. The layout and the panel ids are
 * ours: the SDK (0.0.21) gives every panel no id and every row id 0, and places a panel that
 * does not fit the rest of a line past column 24 instead of wrapping it.
 */
import type { Builder } from '@grafana/grafana-foundation-sdk/cog';
import {
  type AnnotationQuery,
  DashboardBuilder,
  DashboardCursorSync,
  type DashboardLink,
  type Dashboard as DashboardModel,
  type GridPos,
  type Panel,
  RowBuilder,
} from '@grafana/grafana-foundation-sdk/dashboard';
import type { VariableBuilder } from './variables.ts';

/** The dashboard JSON model, as the SDK builds it. */
export type Dashboard = DashboardModel;

/** An entry of a dashboard's panel list: a panel (any SDK panel builder) or a section header. */
export type PanelItem = Builder<Panel> | RowBuilder;

/** Options of {@link dashboard}. */
export interface DashboardOptions {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly VariableBuilder[];
  readonly links: ReadonlyArray<Builder<DashboardLink>>;
  readonly panels: readonly PanelItem[];
  /** Annotation queries, e.g. alert or control-limit violations marked on every time series. */
  readonly annotations?: ReadonlyArray<Builder<AnnotationQuery>>;
  readonly time?: string;
}

const GRID_WIDTH = 24;

/** The id {@link dashboard} gives `item` in `items` (its place in the list, from 1). */
export function panelIdOf(items: readonly PanelItem[], item: PanelItem): number {
  const i = items.indexOf(item);
  if (i < 0) throw new Error('panelIdOf: the panel is not in the list');
  return i + 1;
}

/** Assigns ids and grid positions, and adds the panels and rows to `b` in order. */
function layout(b: DashboardBuilder, items: readonly PanelItem[]): void {
  let x = 0;
  let y = 0;
  let lineHeight = 0;
  const newline = () => {
    y += lineHeight;
    x = 0;
    lineHeight = 0;
  };
  items.forEach((item, i) => {
    const id = i + 1;
    if (item instanceof RowBuilder) {
      newline();
      b.withRow(item.id(id).gridPos({ h: 1, w: GRID_WIDTH, x: 0, y }));
      y += 1;
      return;
    }
    const panel = item.build();
    const { w, h } = panel.gridPos ?? { w: 12, h: 9 };
    if (x + w > GRID_WIDTH) newline();
    const gridPos: GridPos = { h, w, x, y };
    b.withPanel({ build: () => ({ ...panel, id, gridPos }) });
    x += w;
    lineHeight = Math.max(lineHeight, h);
  });
}

/** Builds a dashboard with the house defaults (shared crosshair, 1 m refresh, 6 h range). */
export function dashboard(o: DashboardOptions): Dashboard {
  const b = new DashboardBuilder(o.title)
    .uid(o.uid)
    .description(o.description)
    .tags(['station-exporter'])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .version(1)
    .refresh('1m')
    .time({ from: o.time ?? 'now-6h', to: 'now' })
    .timezone('')
    .variables([...o.variables])
    .annotations([...(o.annotations ?? [])])
    .links([...o.links]);
  layout(b, o.panels);
  return b.build();
}
