/**
 * Control charts (docs/measurements.md#control-charts): on the station dashboard a
 * chart per charted measurement with its limits and the rule violations as annotations; on the
 * line dashboard the stations out of control now. The series exist only for names matched by
 * the exporter's `measurements.control.names`; elsewhere these panels show no data.
 */
import type { Builder } from '@grafana/grafana-foundation-sdk/cog';
import {
  type AnnotationQuery,
  MappingType,
  type QueryVariableBuilder,
  type ValueMapping,
} from '@grafana/grafana-foundation-sdk/dashboard';
import type * as timeseriesPanel from '@grafana/grafana-foundation-sdk/timeseries';
import { promAnnotation } from './annotations.ts';
import type { PanelItem } from './dashboard.ts';
import { stationLink } from './links.ts';
import { row, stat, timeseries } from './panels.ts';
import { q } from './query.ts';
import { type Column, table } from './table.ts';
import { labelValues } from './variables.ts';

/** The `control` variable: measurements with a control chart at the station (label `metric`). */
export function controlVariable(station: string): QueryVariableBuilder {
  return labelValues({
    name: 'control',
    of: 'metric',
    label: 'Control chart',
    description: 'Measurements of the station with a control chart (exporter `measurements.control.names`).',
    selector: `station_measurement_control_center{${station}}`,
    multi: true,
  });
}

const dashed = (color: string, dash: number[]) => [
  { id: 'color', value: { mode: 'fixed', fixedColor: color } },
  { id: 'custom.lineStyle', value: { fill: 'dash', dash } },
];

/** State 0/1 as words, coloured. */
const STATE_MAPPING: ValueMapping[] = [
  {
    type: MappingType.ValueToText,
    options: {
      '0': { text: 'in control', color: 'green', index: 0 },
      '1': { text: 'out of control', color: 'red', index: 1 },
    },
  },
];

/**
 * The control chart of each selected measurement (a panel repeated over `$control`): the latest
 * value at every scrape, the centre line, the I-chart limits and the spec limits.
 */
export function controlChart(station: string): timeseriesPanel.PanelBuilder {
  const M = `${station}, metric=~"$control"`;
  const unit = `* on (station_id, metric) group_left (unit) station_measurement_info{${station}}`;
  return timeseries({
    title: 'Control chart: $control',
    description:
      'I chart of the measurement: its latest value at every scrape (one point per scrape, not per record), ' +
      'the centre line and the control limits (UCL/LCL, centre ± 3 sigma of the baseline) and the spec limits ' +
      '(USL/LSL). Red marks: Nelson rule violations (the "Control violations" annotations).',
    unit: 'none',
    queries: [
      q(`station_measurement_last_value{${M}} ${unit}`, '{{metric}} {{slot}} value ({{unit}})'),
      q(`station_measurement_control_center{${M}}`, '{{metric}} {{slot}} centre'),
      q(`station_measurement_control_ucl{${M}}`, '{{metric}} {{slot}} UCL'),
      q(`station_measurement_control_lcl{${M}}`, '{{metric}} {{slot}} LCL'),
      q(`station_measurement_upper_limit{${M}}`, '{{metric}} {{slot}} USL'),
      q(`station_measurement_lower_limit{${M}}`, '{{metric}} {{slot}} LSL'),
    ],
  })
    .repeat('control')
    .repeatDirection('h')
    .maxPerRow(2)
    .overrideByRegexp(' value ', [
      { id: 'custom.showPoints', value: 'always' },
      { id: 'custom.pointSize', value: 4 },
    ])
    .overrideByRegexp(' centre$', [{ id: 'color', value: { mode: 'fixed', fixedColor: 'green' } }])
    .overrideByRegexp(' (UCL|LCL)$', dashed('red', [10, 10]))
    .overrideByRegexp(' (USL|LSL)$', dashed('orange', [4, 4]));
}

/** Control-chart panels of the station dashboard; `chart` is {@link controlChart}'s panel. */
export function controlPanels(station: string, chart: PanelItem): PanelItem[] {
  const M = `${station}, metric=~"$control"`;
  const limit = (name: string, suffix: string): Column => ({
    name,
    unit: 'none',
    expr: `station_measurement_control_${suffix}{${M}} * on (station_id, metric) group_left (unit) station_measurement_info{${station}}`,
  });
  return [
    row('Control charts'),
    table({
      title: 'Control limits',
      description:
        'Per charted measurement and slot: the state (out of control while an enabled Nelson rule has a violation ' +
        'in the evaluation window), the I-chart centre and limits and sigma ((UCL - LCL) / 6: mean moving range / ' +
        '1.128, widened on an autocorrelated baseline). Absent below min_samples baseline points.',
      labels: [
        { label: 'metric', name: 'Measurement' },
        { label: 'slot', name: 'Slot' },
        { label: 'unit', name: 'Unit' },
      ],
      columns: [
        limit('State', 'state'),
        limit('LCL', 'lcl'),
        limit('Centre', 'center'),
        limit('UCL', 'ucl'),
        // Sigma is not exported per chart, to keep a chart within its series budget (`npm run bench`,
        // control series per charted series): the limits are centre ± 3 sigma.
        {
          name: 'Sigma',
          unit: 'none',
          expr: `(station_measurement_control_ucl{${M}} - station_measurement_control_lcl{${M}}) / 6 * on (station_id, metric) group_left (unit) station_measurement_info{${station}}`,
        },
      ],
      sortBy: { column: 'Measurement', desc: false },
      h: 7,
    }).overrideByName('State', [
      { id: 'mappings', value: STATE_MAPPING },
      { id: 'custom.cellOptions', value: { type: 'color-text' } },
    ]),
    table({
      title: 'Rule violations',
      description:
        'Per charted measurement, slot and Nelson rule: the points of the evaluation window at which the rule ' +
        'completes. Sparse: a rule is listed only while it has a violation in the window. The events (each point ' +
        'counted once) are station_measurement_control_violations_total, rule 1 and rules 2-8 together.',
      labels: [
        { label: 'metric', name: 'Measurement' },
        { label: 'slot', name: 'Slot' },
        { label: 'rule', name: 'Rule' },
      ],
      columns: [
        {
          name: 'Violations',
          unit: 'short',
          expr: `max without () (station_measurement_control_window_violations{${M}})`,
        },
      ],
      sortBy: { column: 'Violations', desc: true },
      h: 7,
    }),
    chart,
    timeseries({
      title: 'CUSUM',
      description:
        'Two-sided CUSUM of each charted measurement, in sigmas of its chart: C+ upwards and C- drawn downwards, ' +
        'against the decision interval ±h of the measurement name. A sum beyond h signals a sustained shift (the ' +
        'MeasurementShiftDetected alert): the gauge shows the sum that crossed until the next point, then both ' +
        'sums restart, at h/2 with the fast initial response. On a chart compensated for autocorrelation the sums ' +
        'are divided by the factor its h is widened by, so they cross the same h.',
      unit: 'none',
      queries: [
        q(`station_measurement_control_cusum_upper{${M}}`, '{{metric}} {{slot}} C+'),
        q(`-station_measurement_control_cusum_lower{${M}}`, '{{metric}} {{slot}} C-'),
        q(`station_measurement_control_cusum_decision_interval{metric=~"$control"}`, '{{metric}} h'),
        q(`-station_measurement_control_cusum_decision_interval{metric=~"$control"}`, '{{metric}} -h'),
      ],
    }).overrideByRegexp(' -?h$', dashed('red', [10, 10])),
    timeseries({
      title: 'EWMA',
      description:
        'EWMA of each charted measurement in its unit, with the exact time-varying limits (centre ± the half-width) ' +
        'and the centre line: the statistic beyond a limit is an EWMA signal (rule="ewma" in ' +
        'station_measurement_control_violations_total), shown with the limits it crossed until the next point.',
      unit: 'none',
      queries: [
        q(`station_measurement_control_ewma{${M}}`, '{{metric}} {{slot}} EWMA'),
        q(`station_measurement_control_center{${M}}`, '{{metric}} {{slot}} centre'),
        q(
          `station_measurement_control_center{${M}} + station_measurement_control_ewma_half_width{${M}}`,
          '{{metric}} {{slot}} upper limit',
        ),
        q(
          `station_measurement_control_center{${M}} - station_measurement_control_ewma_half_width{${M}}`,
          '{{metric}} {{slot}} lower limit',
        ),
      ],
    })
      .overrideByRegexp(' centre$', [{ id: 'color', value: { mode: 'fixed', fixedColor: 'green' } }])
      .overrideByRegexp(' (upper|lower) limit$', dashed('red', [10, 10])),
  ];
}

/**
 * Violations of the station's charted measurements as annotations on the control charts: a band
 * while a rule has violations in the evaluation window; on the I chart and on the CUSUM and EWMA
 * panels, a mark at each CUSUM or EWMA signal: the last signal's time changes with every signal,
 * so over a time range ("use value as timestamp") every signal in it is marked at its record's
 * time. (No last time per Nelson rule is exported: ten series per chart once every rule had fired.)
 * On the I chart also, for charts with approved limits, the approval (its time as the value) and
 * the start of each period the approving study excluded, with its assignable cause.
 */
export function controlAnnotations(
  station: string,
  panels: { readonly chart: readonly number[]; readonly sequential: readonly number[] },
): Array<Builder<AnnotationQuery>> {
  const M = `${station}, metric=~"$control"`;
  const panelIds = panels.chart;
  const shiftPanels = [...panels.chart, ...panels.sequential];
  return [
    promAnnotation({
      name: 'Control violations',
      expr: `station_measurement_control_window_violations{${M}}`,
      title: 'Nelson rule {{rule}}: {{metric}} {{slot}}',
      text: 'Rule {{rule}} has violations in the evaluation window of {{metric}} {{slot}} at {{station}}.',
      tags: 'metric,slot,rule',
      panelIds,
    }),
    promAnnotation({
      name: 'Shift signals',
      expr: `station_measurement_control_last_violation_timestamp_seconds{${M}, rule=~"cusum|ewma"} * 1000`,
      title: '{{rule}} signal: {{metric}} {{slot}}',
      text: 'The {{rule}} of {{metric}} {{slot}} at {{station}} signalled a sustained shift of the mean at this record (the CUSUM pages MeasurementShiftDetected).',
      color: 'purple',
      tags: 'metric,slot,rule',
      useValueForTime: true,
      panelIds: shiftPanels,
    }),
    promAnnotation({
      name: 'Limits approved',
      expr:
        `station_measurement_control_limits_approved_timestamp_seconds{${M}} * 1000 ` +
        `* on (station_id, metric, slot) group_left (approved_by) station_measurement_control_limits_info{${M}, source="approved"}`,
      title: 'Limits approved: {{metric}} {{slot}}',
      text: 'The control limits of {{metric}} {{slot}} at {{station}} in use since: approved by {{approved_by}} (measurements.control.limits_file); frozen from then on.',
      color: 'green',
      tags: 'metric,slot,approved_by',
      useValueForTime: true,
      panelIds,
    }),
    promAnnotation({
      name: 'Excluded from the study',
      expr: `station_measurement_control_limits_exclusion_timestamp_seconds{${M}} * 1000`,
      title: 'Excluded: {{cause}}',
      text: 'The Phase I study of the approved limits of {{metric}} {{slot}} at {{station}} left out the points from here: {{cause}}.',
      color: 'orange',
      tags: 'metric,slot,cause',
      useValueForTime: true,
      panelIds,
    }),
  ];
}

/** Control-chart panels of the line dashboard for the line matched by `line` (site and line). */
export function lineControlPanels(line: string): PanelItem[] {
  const positioned = (expr: string) => `(${expr}) * on (station_id) group_left (position) station_info`;
  const outOfControl = `station_measurement_control_window_violations{${line}} and on (station_id, metric, slot) (station_measurement_control_state{${line}} == 1)`;
  return [
    row('Control charts'),
    stat({
      title: 'Charts out of control',
      description:
        'Control charts (station, measurement, slot) of the line with a Nelson rule violation in their evaluation ' +
        'window now, out of all charted ones. No data while no measurement of the line has a control chart.',
      unit: 'short',
      thresholds: [
        ['green', null],
        ['red', 1],
      ],
      queries: [q(`sum(station_measurement_control_state{${line}})`, 'out of control')],
    }),
    stat({
      title: 'Charted series',
      description:
        'Control charts of the line that have limits (one per station, charted measurement name and slot).',
      unit: 'short',
      queries: [q(`count(station_measurement_control_state{${line}})`, 'charted')],
    }),
    table({
      title: 'Stations out of control',
      description:
        'Stations with a control chart out of control now (station_measurement_control_state == 1), one row per ' +
        'measurement, slot and violated Nelson rule, in line order: the rule\u2019s points in the evaluation window. ' +
        'Click a station to open its control charts. Empty while every chart is in control.',
      labels: [
        { label: 'position', name: 'Position' },
        { label: 'station', name: 'Station', links: [stationLink()] },
        { label: 'group', name: 'Group' },
        { label: 'metric', name: 'Measurement' },
        { label: 'slot', name: 'Slot' },
        { label: 'rule', name: 'Rule' },
      ],
      numericLabels: ['position'],
      columns: [{ name: 'Violations', unit: 'short', expr: positioned(outOfControl) }],
      sortBy: { column: 'Position', desc: false },
      w: 16,
      h: 8,
    }),
  ];
}
