/**
 * One station: its summary over every window, its measurements against their limits and its
 * unit records. Sections for collectors that are disabled simply show no data.
 */
import { controlAnnotations, controlChart, controlPanels, controlVariable } from './control.ts';
import { type Dashboard, dashboard, type PanelItem, panelIdOf } from './dashboard.ts';
import { dashboardLink, UID } from './links.ts';
import { row, stat, timeseries } from './panels.ts';
import { q, type Unit } from './query.ts';
import { measurementPanels, measurementVariable, unitPanels } from './station-records.ts';
import { type Column, table } from './table.ts';
import { datasourceVariable, labelValues, windowVariable } from './variables.ts';

/** Matchers of the selected station, without the window. */
const STATION = 'site="$site", line="$line", station="$station"';

function summaryColumn(name: string, field: string, unit: Unit): Column {
  return { name, unit, expr: `station_${field}{${STATION}}` };
}

function summaryPanels(): PanelItem[] {
  const W = `${STATION}, window="$window"`;
  return [
    row('Summary'),
    stat({
      title: 'Final yield',
      description: 'Units whose final result at this station is pass, over units with an output, in $window.',
      unit: 'percentunit',
      decimals: 2,
      queries: [q(`station_final_yield_ratio{${W}}`, 'final yield')],
    }),
    stat({
      title: 'First-pass yield',
      description:
        'Units that passed this station at the first attempt, over units with an output, in $window.',
      unit: 'percentunit',
      decimals: 2,
      queries: [q(`station_first_pass_yield_ratio{${W}}`, 'first-pass yield')],
    }),
    stat({
      title: 'Retry ratio',
      description: 'Share of output records at this station that were retests of a unit, in $window.',
      unit: 'percentunit',
      decimals: 2,
      queries: [q(`station_retry_ratio{${W}}`, 'retry ratio')],
    }),
    stat({
      title: 'Output units',
      description: 'Distinct units with an output record at this station in $window.',
      unit: 'short',
      queries: [q(`station_unique_output_units{${W}}`, 'units')],
    }),
    table({
      title: 'Station',
      description:
        'Descriptive labels of the station from the upstream hierarchy: ids, group, position, description.',
      labels: [
        { label: 'station_id', name: 'Station id' },
        { label: 'group', name: 'Group' },
        { label: 'position', name: 'Position' },
        { label: 'description', name: 'Description' },
        { label: 'line_id', name: 'Line id' },
        { label: 'site_id', name: 'Site id' },
      ],
      columns: [{ name: 'Info', unit: 'short', expr: `station_info{${STATION}}` }],
      hideValues: true,
      w: 8,
      h: 4,
    }),
    table({
      title: 'Summary over windows',
      description:
        'Every summary field of the station for every configured window, as the upstream reports them.',
      labels: [{ label: 'window', name: 'Window' }],
      columns: [
        summaryColumn('Final yield', 'final_yield_ratio', 'percentunit'),
        summaryColumn('First-pass yield', 'first_pass_yield_ratio', 'percentunit'),
        summaryColumn('Retry ratio', 'retry_ratio', 'percentunit'),
        summaryColumn('Units seen', 'unique_units', 'short'),
        summaryColumn('Input units', 'unique_input_units', 'short'),
        summaryColumn('Output units', 'unique_output_units', 'short'),
        summaryColumn('Input records', 'input_units', 'short'),
        summaryColumn('Output records', 'output_units', 'short'),
        summaryColumn('First pass', 'first_pass_units', 'short'),
        summaryColumn('Final pass', 'final_pass_units', 'short'),
      ],
      sortBy: { column: 'Window', desc: false },
      h: 6,
    }),
    timeseries({
      title: 'Final yield by window',
      description: 'Final yield of the station over time, one line per configured window.',
      unit: 'percentunit',
      max: 1,
      queries: [q(`station_final_yield_ratio{${STATION}}`, '{{window}}')],
    }),
    timeseries({
      title: 'Retry ratio by window',
      description: 'Retry ratio of the station over time, one line per configured window.',
      unit: 'percentunit',
      min: 0,
      queries: [q(`station_retry_ratio{${STATION}}`, '{{window}}')],
    }),
  ];
}

/** The station dashboard. */
export function stationDashboard(): Dashboard {
  const chart = controlChart(STATION);
  const control = controlPanels(STATION, chart);
  const panels = [...summaryPanels(), ...measurementPanels(STATION), ...control, ...unitPanels(STATION)];
  // The CUSUM and EWMA panels close the control section.
  const sequential = control.slice(-2).map((p) => panelIdOf(panels, p));
  return dashboard({
    uid: UID.station,
    title: 'Station exporter / Station',
    description:
      'One station: summary over every window, measurements against their limits, control charts, unit records.',
    variables: [
      datasourceVariable(),
      labelValues({
        name: 'site',
        label: 'Site',
        description: 'Site of the station.',
        selector: 'station_info',
      }),
      labelValues({
        name: 'line',
        label: 'Line',
        description: 'Line of the station.',
        selector: 'station_info{site="$site"}',
      }),
      labelValues({
        name: 'station',
        label: 'Station',
        description: 'The station to show.',
        selector: 'station_info{site="$site", line="$line"}',
      }),
      windowVariable(),
      measurementVariable(STATION),
      controlVariable(STATION),
    ],
    links: [
      dashboardLink('Line', UID.line, 'The line of this station'),
      dashboardLink('Plant overview', UID.overview, 'All sites and lines'),
    ],
    panels,
    annotations: controlAnnotations(STATION, { chart: [panelIdOf(panels, chart)], sequential }),
  });
}
