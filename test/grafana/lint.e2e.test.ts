/**
 * The dashboard linter (lint.ts) passes on every generated dashboard, and each of its rules
 * catches the mistake it is for: a broken copy of a real dashboard must give that rule's finding.
 */
import { describe, expect, it } from 'vitest';
import { promAnnotation } from '../../grafana/src/annotations.ts';
import { dashboard } from '../../grafana/src/dashboard.ts';
import { dashboardLink, UID } from '../../grafana/src/links.ts';
import { row, timeseries } from '../../grafana/src/panels.ts';
import { q } from '../../grafana/src/query.ts';
import { datasourceVariable, labelValues } from '../../grafana/src/variables.ts';
import { type DashboardJson, generatedDashboards, queryPanels } from './inspect.ts';
import { lintDashboard, lintSet } from './lint.ts';

const generated = generatedDashboards();
const all = generated.map((g) => g.dashboard);
const station = all.find((d) => d.uid === UID.station)!;
const health = all.find((d) => d.uid === UID.health)!;

type Mutable<T> =
  T extends ReadonlyArray<infer U>
    ? Mutable<U>[]
    : T extends object
      ? { -readonly [K in keyof T]: Mutable<T[K]> }
      : T;

/** A deep, writable copy of `d` changed by `change`. */
function broken(d: DashboardJson, change: (copy: Mutable<DashboardJson>) => void): DashboardJson {
  const copy = structuredClone(d) as Mutable<DashboardJson>;
  change(copy);
  return copy as DashboardJson;
}

const panel = (d: Mutable<DashboardJson>, title: string) =>
  d.panels.find((p) => p.title === title && p.type !== 'row')!;
const rules = (d: DashboardJson) => [...new Set(lintDashboard(d).map((f) => f.rule))];

describe('dashboard lint', () => {
  it.each(generated.map((g) => [g.file, g.dashboard] as const))('%s has no findings', (_file, d) => {
    expect(lintDashboard(d)).toEqual([]);
  });

  it('keeps the uids stable and unique', () => {
    // Bookmarks and links use these: the list is written out so that a rename fails here.
    expect(Object.fromEntries(generated.map((g) => [g.file, g.dashboard.uid]))).toEqual({
      'plant-overview.json': 'station-exporter-overview',
      'line.json': 'station-exporter-line',
      'station.json': 'station-exporter-station',
      'exporter-health.json': 'station-exporter-health',
    });
    expect(lintSet(all)).toEqual([]);
    expect(lintSet([...all, station]).map((f) => f.rule)).toEqual(['dashboard-uid-rule']);
  });

  const cases: Array<[string, DashboardJson, string]> = [
    [
      'a hard-coded data source uid on a target',
      broken(station, (d) => {
        panel(d, 'Final yield').targets![0]!.datasource = { type: 'prometheus', uid: 'P1809F7CD0C75ACF3' };
      }),
      'panel-datasource-rule',
    ],
    [
      'a data source by name in an annotation',
      broken(station, (d) => {
        (d.annotations as { list: unknown[] }).list = [{ name: 'x', datasource: 'Prometheus', expr: 'up' }];
      }),
      'panel-datasource-rule',
    ],
    [
      'no datasource variable',
      broken(station, (d) => void d.templating.list.shift()),
      'template-datasource-rule',
    ],
    [
      'a fixed rate range',
      broken(health, (d) => {
        const t = panel(d, 'Requests by outcome').targets![0]!;
        t.expr = t.expr.replace('[$__rate_interval]', '[5m]');
      }),
      'target-rate-interval-rule',
    ],
    [
      'increase over a fixed range',
      broken(health, (d) => {
        panel(d, 'Scrapes').targets![0]!.expr = 'sum(increase(station_exporter_scrapes_total[1h]))';
      }),
      'target-rate-interval-rule',
    ],
    [
      'a counter without rate',
      broken(health, (d) => {
        panel(d, 'Scrapes').targets![0]!.expr = 'sum(station_exporter_scrapes_total)';
      }),
      'target-counter-agg-rule',
    ],
    [
      'a panel without a unit',
      broken(station, (d) => {
        delete panel(d, 'Retry ratio').fieldConfig!.defaults.unit;
      }),
      'panel-units-rule',
    ],
    [
      'a misspelt column unit',
      broken(station, (d) => {
        panel(d, 'Summary over windows').fieldConfig!.overrides[0]!.properties[0]!.value = 'percent_unit';
      }),
      'panel-units-rule',
    ],
    [
      'a panel without a description',
      broken(station, (d) => {
        panel(d, 'Ppk').description = '';
      }),
      'panel-title-description-rule',
    ],
    [
      'two panels with one id',
      broken(station, (d) => {
        d.panels[2]!.id = d.panels[1]!.id;
      }),
      'panel-id-rule',
    ],
    [
      'a variable from query_result',
      broken(station, (d) => {
        d.templating.list[1]!.query = 'query_result(station_info)';
      }),
      'template-label-promql-rule',
    ],
    [
      'a variable refreshed only on load',
      broken(station, (d) => {
        d.templating.list[1]!.refresh = 1;
      }),
      'template-on-time-change-reload-rule',
    ],
    [
      'an old schemaVersion',
      broken(station, (d) => {
        d.schemaVersion = 39;
      }),
      'dashboard-schema-version-rule',
    ],
    [
      'a uid with a slash',
      broken(station, (d) => {
        d.uid = 'station/exporter';
      }),
      'dashboard-uid-rule',
    ],
    [
      'a header link moved to the controls menu',
      broken(station, (d) => {
        d.links[0]!.placement = 'inControlsMenu';
      }),
      'dashboard-links-header-rule',
    ],
  ];

  it.each(cases)('catches %s', (_what, d, rule) => {
    expect(rules(d)).toEqual([rule]);
  });
});

describe('adding a panel', () => {
  // A control chart of one measurement from existing series: value, centre (window mean),
  // control limits (mean ± 3 sd), spec limits; values beyond the control limits as annotations.
  const M = 'station="$station", metric="$measurement"';
  const mean = `station_measurement_window_mean{${M}, window="24h"}`;
  const sd = `station_measurement_window_stddev{${M}, window="24h"}`;
  const value = `station_measurement_last_value{${M}}`;
  const built = dashboard({
    uid: 'station-exporter-example',
    title: 'Example / Control chart',
    description: 'A dashboard assembled from the shared builders, as a new panel would be.',
    variables: [
      datasourceVariable(),
      labelValues({ name: 'station', label: 'Station', description: 'Station.', selector: 'station_info' }),
      labelValues({
        name: 'measurement',
        of: 'metric',
        label: 'Measurement',
        description: 'Measurement.',
        selector: 'station_measurement_info{station="$station"}',
      }),
    ],
    links: [dashboardLink('Station', UID.station, 'The station')],
    annotations: [
      promAnnotation({
        name: 'Beyond control limits',
        expr: `abs(${value} - ignoring (window) ${mean}) > ignoring (window) (3 * ${sd})`,
        title: '{{metric}} {{slot}} beyond 3 sd',
        text: 'The latest value is more than three standard deviations from the 24h mean.',
      }),
    ],
    panels: [
      row('Control chart'),
      timeseries({
        title: 'Control chart',
        description:
          'Latest value against its 24h mean, the mean ± 3 standard deviations and the spec limits.',
        unit: 'none',
        w: 24,
        queries: [
          q(value, 'value'),
          q(mean, 'centre'),
          q(`${mean} + 3 * ${sd}`, 'UCL'),
          q(`${mean} - 3 * ${sd}`, 'LCL'),
          q(`station_measurement_upper_limit{${M}}`, 'USL'),
          q(`station_measurement_lower_limit{${M}}`, 'LSL'),
        ],
      }).overrideByRegexp('^(UCL|LCL|USL|LSL)$', [
        { id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } },
      ]),
    ],
  });
  const d = JSON.parse(JSON.stringify(built)) as DashboardJson;

  it('takes a few lines with the shared builders, and passes the linter', () => {
    expect(lintDashboard(d)).toEqual([]);
    const [chart] = queryPanels(d);
    expect(chart).toMatchObject({ id: 2, gridPos: { x: 0, y: 1, w: 24, h: 8 } });
    expect(chart!.targets.map((t) => t.refId)).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    expect(d.annotations.list).toHaveLength(1);
  });
});
