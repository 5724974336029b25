/**
 * One line, station by station in line order. `position` lives on `station_info` only, so the
 * station series are joined to it on `station_id` (names are not unique, ids are).
 */
import { lineControlPanels } from './control.ts';
import { type Dashboard, dashboard } from './dashboard.ts';
import { distributionPanels, distributionVariable } from './distribution.ts';
import { rolledThroughputYield, unitsPerHour } from './line-queries.ts';
import { dashboardLink, stationLink, UID } from './links.ts';
import { row, stat, timeseries } from './panels.ts';
import { q, type Unit } from './query.ts';
import { table } from './table.ts';
import { datasourceVariable, labelValues, windowVariable } from './variables.ts';

const LINE = 'site="$site", line="$line", window="$window"';
const SITE_LINE = 'site="$site", line="$line"';

function positioned(metric: string): string {
  return `${metric}{${LINE}} * on (station_id) group_left (position) station_info`;
}

function lineStat(field: string, title: string, unit: Unit, description: string) {
  return stat({
    title,
    description,
    unit,
    decimals: unit === 'percentunit' ? 2 : 0,
    queries: [q(`station_line_${field}{${LINE}}`, title)],
  });
}

/** The line dashboard. */
export function lineDashboard(): Dashboard {
  return dashboard({
    uid: UID.line,
    title: 'Station exporter / Line',
    description:
      'One line: its own yields, then every station in line order, then its groups and its control charts out of control.',
    variables: [
      datasourceVariable(),
      labelValues({
        name: 'site',
        label: 'Site',
        description: 'Site of the line.',
        selector: 'station_info',
      }),
      labelValues({
        name: 'line',
        label: 'Line',
        description: 'The line to show.',
        selector: 'station_info{site="$site"}',
      }),
      windowVariable(),
      distributionVariable(SITE_LINE),
    ],
    links: [
      dashboardLink('Plant overview', UID.overview, 'All sites and lines'),
      dashboardLink('Station', UID.station, 'One station of this line'),
    ],
    panels: [
      row('Line'),
      lineStat(
        'final_yield_ratio',
        'Final yield',
        'percentunit',
        'Final yield of the whole line over the window, computed by the upstream over its units.',
      ),
      lineStat(
        'first_pass_yield_ratio',
        'First-pass yield',
        'percentunit',
        'Units that passed every station of the line at the first attempt, over units with an output.',
      ),
      lineStat(
        'retry_ratio',
        'Retry ratio',
        'percentunit',
        'Share of output records on the line that were retests of a unit at the same station.',
      ),
      lineStat(
        'unique_input_units',
        'Input units',
        'short',
        'Distinct units with an input record on the line over the window.',
      ),
      lineStat(
        'unique_output_units',
        'Output units',
        'short',
        'Distinct units with an output record on the line over the window.',
      ),
      lineStat(
        'unique_units',
        'Units seen',
        'short',
        'Distinct units seen anywhere on the line over the window.',
      ),
      stat({
        title: 'Rolled throughput yield',
        description:
          "Product of the first-pass yields of the line's steps over the window (a group of parallel stations " +
          'is one step): the chance that a unit passes every step at the first attempt, if steps are independent.',
        unit: 'percentunit',
        decimals: 2,
        queries: [q(rolledThroughputYield(LINE), 'RTY')],
      }),
      stat({
        title: 'Units per hour',
        description:
          'Distinct units with an output record over the last hour at the last element of the line ' +
          '(station_line_output_info), where units leave the line.',
        unit: 'short',
        queries: [q(unitsPerHour(SITE_LINE), 'units/h')],
      }),
      stat({
        title: 'Final yield target',
        description:
          "The line's final yield target (exporter config `targets`), what StationLineLowFinalYield compares with.",
        unit: 'percentunit',
        decimals: 2,
        queries: [q(`station_line_target_final_yield_ratio{${SITE_LINE}}`, 'target')],
      }),
      stat({
        title: 'First-pass yield target',
        description: "The line's first-pass yield target (exporter config `targets`).",
        unit: 'percentunit',
        decimals: 2,
        queries: [q(`station_line_target_first_pass_yield_ratio{${SITE_LINE}}`, 'target')],
      }),
      timeseries({
        title: 'Yields against targets',
        description:
          'Final yield, first-pass yield and rolled throughput yield of the line over the window, with the ' +
          'final and first-pass yield targets of the exporter config.',
        unit: 'percentunit',
        max: 1,
        queries: [
          q(`station_line_final_yield_ratio{${LINE}}`, 'final yield'),
          q(`station_line_target_final_yield_ratio{${SITE_LINE}}`, 'final yield target'),
          q(`station_line_first_pass_yield_ratio{${LINE}}`, 'first-pass yield'),
          q(`station_line_target_first_pass_yield_ratio{${SITE_LINE}}`, 'first-pass yield target'),
          q(rolledThroughputYield(LINE), 'rolled throughput yield'),
        ],
      }).overrideByRegexp('target$', [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }]),
      timeseries({
        title: 'Units per hour',
        description:
          'Distinct units leaving the line per hour: output units of its last element over the 1h window.',
        unit: 'short',
        min: 0,
        queries: [q(unitsPerHour(SITE_LINE), 'units/h')],
      }),
      row('Stations in line order'),
      table({
        title: 'Stations',
        description:
          'Every station of the line sorted by its position (parallel stations of a group share one). ' +
          'Click a station to open it.',
        labels: [
          { label: 'position', name: 'Position' },
          { label: 'station', name: 'Station', links: [stationLink()] },
          { label: 'group', name: 'Group' },
        ],
        numericLabels: ['position'],
        columns: [
          { name: 'Final yield', unit: 'percentunit', expr: positioned('station_final_yield_ratio') },
          {
            name: 'First-pass yield',
            unit: 'percentunit',
            expr: positioned('station_first_pass_yield_ratio'),
          },
          { name: 'Retry ratio', unit: 'percentunit', expr: positioned('station_retry_ratio') },
          { name: 'Input units', unit: 'short', expr: positioned('station_unique_input_units') },
          { name: 'Output units', unit: 'short', expr: positioned('station_unique_output_units') },
        ],
        sortBy: { column: 'Position', desc: false },
      }),
      timeseries({
        title: 'Station final yield',
        description: 'Final yield of each station over the window; the legend starts with the position.',
        unit: 'percentunit',
        max: 1,
        queries: [q(positioned('station_final_yield_ratio'), '{{position}} {{station}}')],
      }),
      timeseries({
        title: 'Station retry ratio',
        description:
          'Retry ratio of each station over the window: share of its output records that were retests.',
        unit: 'percentunit',
        min: 0,
        queries: [q(positioned('station_retry_ratio'), '{{position}} {{station}}')],
      }),
      timeseries({
        title: 'Station first-pass yield',
        description: 'First-pass yield of each station over the window.',
        unit: 'percentunit',
        max: 1,
        queries: [q(positioned('station_first_pass_yield_ratio'), '{{position}} {{station}}')],
      }),
      timeseries({
        title: 'Station output units',
        description: 'Distinct units with an output record at each station over the window.',
        unit: 'short',
        min: 0,
        queries: [q(positioned('station_unique_output_units'), '{{position}} {{station}}')],
      }),
      row('Groups of parallel stations'),
      table({
        title: 'Groups',
        description:
          'Each group of parallel stations as one step, computed by the upstream over the units of all its ' +
          'stations together.',
        labels: [{ label: 'group', name: 'Group' }],
        columns: [
          { name: 'Final yield', unit: 'percentunit', expr: `station_group_final_yield_ratio{${LINE}}` },
          {
            name: 'First-pass yield',
            unit: 'percentunit',
            expr: `station_group_first_pass_yield_ratio{${LINE}}`,
          },
          { name: 'Retry ratio', unit: 'percentunit', expr: `station_group_retry_ratio{${LINE}}` },
          { name: 'Output units', unit: 'short', expr: `station_group_unique_output_units{${LINE}}` },
        ],
        sortBy: { column: 'Group', desc: false },
        w: 12,
        h: 8,
      }),
      timeseries({
        title: 'Group final yield',
        description: 'Final yield of each group over the window.',
        unit: 'percentunit',
        max: 1,
        queries: [q(`station_group_final_yield_ratio{${LINE}}`, '{{group}}')],
      }),
      ...lineControlPanels(SITE_LINE),
      ...distributionPanels(SITE_LINE),
    ],
  });
}
