/**
 * Plant overview: sites and lines side by side. Site and line yields come from their own
 * level's series (the upstream computes them over the unit set); plant-wide yields sum the site
 * counts and divide, because averaging ratios weighs a quiet site like a busy one.
 */
import { BigValueTextMode } from '@grafana/grafana-foundation-sdk/common';
import { type Dashboard, dashboard } from './dashboard.ts';
import { rolledThroughputYield, unitsPerHour } from './line-queries.ts';
import { dashboardLink, lineLink, UID } from './links.ts';
import { row, type Steps, stat, timeseries } from './panels.ts';
import { q } from './query.ts';
import { table } from './table.ts';
import { datasourceVariable, labelValues, windowVariable } from './variables.ts';

const SITE = 'site=~"$site", window="$window"';
const YIELD_STEPS: Steps = [
  ['red', null],
  ['orange', 0.9],
  ['green', 0.95],
];

function plantRatio(numerator: string): string {
  return `sum(station_site_${numerator}{${SITE}}) / sum(station_site_unique_output_units{${SITE}})`;
}

function worst(metric: string): string {
  return `${metric}{${SITE}} and on (site, line) bottomk(10, station_line_final_yield_ratio{${SITE}})`;
}

/** The plant overview dashboard. */
export function overviewDashboard(): Dashboard {
  return dashboard({
    uid: UID.overview,
    title: 'Station exporter / Plant overview',
    description: 'Yield, retry ratio and throughput of every site and line exported by station-exporter.',
    variables: [
      datasourceVariable(),
      labelValues({
        name: 'site',
        label: 'Site',
        description: 'Sites to show.',
        selector: 'station_info',
        multi: true,
      }),
      windowVariable(),
    ],
    links: [
      dashboardLink('Line', UID.line, 'One line, station by station'),
      dashboardLink('Exporter health', UID.health, 'Is the data fresh and complete?'),
    ],
    panels: [
      row('Plant (selected sites)'),
      stat({
        title: 'Final yield',
        description:
          'Units whose final result is pass over units with an output, across the selected sites: the site ' +
          'counts summed, then divided (never an average of site yields).',
        unit: 'percentunit',
        decimals: 2,
        thresholds: YIELD_STEPS,
        queries: [q(plantRatio('final_pass_units'), 'final yield')],
      }),
      stat({
        title: 'First-pass yield',
        description:
          'Units that passed every station on the first attempt over units with an output, across the selected ' +
          'sites (site counts summed, then divided).',
        unit: 'percentunit',
        decimals: 2,
        thresholds: YIELD_STEPS,
        queries: [q(plantRatio('first_pass_units'), 'first-pass yield')],
      }),
      stat({
        title: 'Output units',
        description: 'Distinct units with an output record over the window, summed over the selected sites.',
        unit: 'short',
        queries: [q(`sum(station_site_unique_output_units{${SITE}})`, 'units')],
      }),
      stat({
        title: 'Site final yield',
        description:
          'Final yield of each site over the window, as computed by the upstream for the whole site.',
        unit: 'percentunit',
        decimals: 2,
        w: 6,
        thresholds: YIELD_STEPS,
        textMode: BigValueTextMode.ValueAndName,
        queries: [q(`station_site_final_yield_ratio{${SITE}}`, '{{site}}')],
      }),
      stat({
        title: 'Site retry ratio',
        description:
          'Share of output records at the site that were retests of a unit already tested at the same station.',
        unit: 'percentunit',
        decimals: 2,
        w: 6,
        textMode: BigValueTextMode.ValueAndName,
        thresholds: [
          ['green', null],
          ['orange', 0.05],
          ['red', 0.1],
        ],
        queries: [q(`station_site_retry_ratio{${SITE}}`, '{{site}}')],
      }),
      row('Lines'),
      table({
        title: 'Worst lines',
        description:
          'The ten lines with the lowest final yield over the window, with their first-pass yield, retry ratio ' +
          'and output. Check the output column before acting: a yield over a handful of units says little. ' +
          'Click a line to open it.',
        labels: [
          { label: 'site', name: 'Site' },
          { label: 'line', name: 'Line', links: [lineLink()] },
        ],
        columns: [
          { name: 'Final yield', unit: 'percentunit', expr: worst('station_line_final_yield_ratio') },
          {
            name: 'First-pass yield',
            unit: 'percentunit',
            expr: worst('station_line_first_pass_yield_ratio'),
          },
          { name: 'Retry ratio', unit: 'percentunit', expr: worst('station_line_retry_ratio') },
          {
            name: 'Final yield target',
            unit: 'percentunit',
            expr: `station_line_target_final_yield_ratio{site=~"$site"} and on (site, line) bottomk(10, station_line_final_yield_ratio{${SITE}})`,
          },
          { name: 'Output units', unit: 'short', expr: worst('station_line_unique_output_units') },
        ],
        sortBy: { column: 'Final yield', desc: false },
      }),
      timeseries({
        title: 'Line final yield',
        description:
          'Final yield of each line over the window, as computed by the upstream for the whole line.',
        unit: 'percentunit',
        max: 1,
        queries: [q(`station_line_final_yield_ratio{${SITE}}`, '{{site}} / {{line}}')],
      }),
      timeseries({
        title: 'Line first-pass yield',
        description:
          'First-pass yield of each line over the window: units that passed every station at once.',
        unit: 'percentunit',
        max: 1,
        queries: [q(`station_line_first_pass_yield_ratio{${SITE}}`, '{{site}} / {{line}}')],
      }),
      timeseries({
        title: 'Line retry ratio',
        description: 'Retry ratio of each line over the window: share of output records that were retests.',
        unit: 'percentunit',
        min: 0,
        queries: [q(`station_line_retry_ratio{${SITE}}`, '{{site}} / {{line}}')],
      }),
      timeseries({
        title: 'Line rolled throughput yield',
        description:
          "Product of the first-pass yields of each line's steps over the window (a group of parallel stations is " +
          'one step): the share of units that would pass every step at the first attempt if steps were independent.',
        unit: 'percentunit',
        max: 1,
        queries: [q(rolledThroughputYield(SITE), '{{site}} / {{line}}')],
      }),
      timeseries({
        title: 'Line units per hour',
        description:
          'Distinct units leaving each line per hour: output units of its last element (station_line_output_info) ' +
          'over the 1h window.',
        unit: 'short',
        min: 0,
        queries: [q(unitsPerHour('site=~"$site"'), '{{site}} / {{line}}')],
      }),
      timeseries({
        title: 'Line throughput',
        description:
          'Distinct units with an output record on each line over the window (a rolling window gives units ' +
          'per window length, e.g. units per hour for 1h).',
        unit: 'short',
        min: 0,
        queries: [q(`station_line_unique_output_units{${SITE}}`, '{{site}} / {{line}}')],
      }),
    ],
  });
}
