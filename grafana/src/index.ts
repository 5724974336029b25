/**
 * Every dashboard, listed explicitly, and their rendering to the committed JSON files.
 */

import type { Dashboard } from './dashboard.ts';
import { healthDashboard } from './health.ts';
import { lineDashboard } from './line.ts';
import { overviewDashboard } from './overview.ts';
import { stationDashboard } from './station.ts';

/** The dashboards with the file name each is written to under `grafana/dashboards/`. */
function dashboards(): ReadonlyArray<{ readonly file: string; readonly dashboard: Dashboard }> {
  return [
    { file: 'plant-overview.json', dashboard: overviewDashboard() },
    { file: 'line.json', dashboard: lineDashboard() },
    { file: 'station.json', dashboard: stationDashboard() },
    { file: 'exporter-health.json', dashboard: healthDashboard() },
  ];
}

/** The JSON text of every dashboard by file name, exactly as committed. */
export function renderDashboards(): Map<string, string> {
  return new Map(
    dashboards().map(({ file, dashboard }) => [file, `${JSON.stringify(dashboard, null, 2)}\n`]),
  );
}
