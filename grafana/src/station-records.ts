/**
 * Station dashboard sections fed by the record collectors (`measurements`, `units`). Their
 * series exist only when those collectors are enabled; otherwise the panels show no data.
 */
import type { QueryVariableBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type { PanelItem } from './dashboard.ts';
import { row, type Steps, stat, timeseries } from './panels.ts';
import { q } from './query.ts';
import { table } from './table.ts';
import { labelValues } from './variables.ts';

/** Capability thresholds shared with the alerts: below 1.0 critical, below 1.33 warning. */
const PPK_STEPS: Steps = [
  ['red', null],
  ['orange', 1],
  ['green', 1.33],
];

/** The `measurement` variable (label `metric`), chained to the selected station. */
export function measurementVariable(station: string): QueryVariableBuilder {
  return labelValues({
    name: 'measurement',
    of: 'metric',
    label: 'Measurement',
    description: 'Measurements of the station (exporter `measurements.names`).',
    selector: `{__name__=~"station_measurement_.+", ${station}}`,
    multi: true,
  });
}

/** Measurement panels for the station matched by `station`. */
export function measurementPanels(station: string): PanelItem[] {
  const M = `${station}, metric=~"$measurement"`;
  const W = `${M}, window="$window"`;
  // The windowed series carry `window` and the latest-value series do not; dropping it lets the
  // table merge both kinds into one row per measurement and slot.
  // The unit of measure lives on station_measurement_info only (one per station and name).
  const unit = (expr: string) =>
    `${expr} * on (station_id, metric) group_left (unit) station_measurement_info{${station}}`;
  const topFailed = `topk(10, sum by (metric) (station_measurement_window_attribute_samples{${W}, outcome="fail"}) > 0)`;
  const windowed = (suffix: string) =>
    unit(`max without (window) (station_measurement_window_${suffix}{${W}})`);
  return [
    row('Measurements'),
    table({
      title: 'Measurements against limits',
      description:
        'Per measurement and slot: the latest value between its spec limits, and over $window the mean, ' +
        'standard deviation, Ppk and the sample counts (numeric values, those out of spec, and failed PASS/FAIL ' +
        'results). Ppk is absent below min_samples values or without limits.',
      labels: [
        { label: 'metric', name: 'Measurement' },
        { label: 'slot', name: 'Slot' },
        { label: 'unit', name: 'Unit' },
      ],
      columns: [
        { name: 'Lower limit', unit: 'none', expr: unit(`station_measurement_lower_limit{${M}}`) },
        { name: 'Last value', unit: 'none', expr: unit(`station_measurement_last_value{${M}}`) },
        { name: 'Upper limit', unit: 'none', expr: unit(`station_measurement_upper_limit{${M}}`) },
        { name: 'Mean', unit: 'none', expr: windowed('mean') },
        { name: 'Std dev', unit: 'none', expr: windowed('stddev') },
        { name: 'Ppk', unit: 'none', expr: windowed('ppk') },
        { name: 'Samples', unit: 'short', expr: windowed('samples') },
        { name: 'Out of spec', unit: 'short', expr: windowed('out_of_spec_samples') },
        {
          name: 'Failed',
          unit: 'short',
          expr: unit(
            `max without (window, outcome) (station_measurement_window_attribute_samples{${W}, outcome="fail"})`,
          ),
        },
      ],
      sortBy: { column: 'Measurement', desc: false },
    }),
    table({
      title: 'Failures by measurement',
      description:
        'Failure Pareto over $window: the ten measurements with the most failed attribute results (PASS/FAIL, ' +
        'OK/NG), with their passes. Empty while nothing failed.',
      labels: [{ label: 'metric', name: 'Measurement' }],
      columns: [
        { name: 'Failed', unit: 'short', expr: topFailed },
        {
          name: 'Passed',
          unit: 'short',
          expr: `sum by (metric) (station_measurement_window_attribute_samples{${W}, outcome="pass"}) and on (metric) ${topFailed}`,
        },
      ],
      sortBy: { column: 'Failed', desc: true },
    }),
    timeseries({
      title: 'Last value and limits',
      description: 'Latest numeric value of each measurement with its upper and lower spec limits.',
      unit: 'none',
      queries: [
        q(unit(`station_measurement_last_value{${M}}`), '{{metric}} {{slot}} ({{unit}})'),
        q(unit(`station_measurement_upper_limit{${M}}`), '{{metric}} {{slot}} upper limit ({{unit}})'),
        q(unit(`station_measurement_lower_limit{${M}}`), '{{metric}} {{slot}} lower limit ({{unit}})'),
      ],
    }),
    timeseries({
      title: 'Ppk',
      description:
        'Process performance index over $window: at least 1.33 is capable, below 1.0 produces out-of-spec ' +
        'parts (the targets of the StationMeasurementCapabilityLost alerts, which judge 95 % bounds of the 24h Ppk).',
      unit: 'none',
      decimals: 2,
      thresholds: PPK_STEPS,
      queries: [q(`station_measurement_window_ppk{${W}}`, '{{metric}} {{slot}}')],
    }),
    timeseries({
      title: 'Window mean',
      description: 'Mean of the numeric values of each measurement over $window.',
      unit: 'none',
      queries: [q(unit(`station_measurement_window_mean{${W}}`), '{{metric}} {{slot}} ({{unit}})')],
    }),
    timeseries({
      title: 'Window standard deviation',
      description: 'Sample standard deviation of the numeric values of each measurement over $window.',
      unit: 'none',
      min: 0,
      queries: [q(unit(`station_measurement_window_stddev{${W}}`), '{{metric}} {{slot}} ({{unit}})')],
    }),
    timeseries({
      title: 'Out-of-spec and failed samples',
      description:
        "Over $window: numeric values outside their record's spec limits, and PASS/FAIL results that failed. " +
        'Records that are neither a number nor a known result (empty, garbage) are counted by the opt-in ' +
        'statistic non_numeric (station_measurement_window_non_numeric_samples), not shown here by default.',
      unit: 'short',
      min: 0,
      queries: [
        q(`station_measurement_window_out_of_spec_samples{${W}}`, '{{metric}} {{slot}} out of spec'),
        q(`station_measurement_window_attribute_samples{${W}, outcome="fail"}`, '{{metric}} {{slot}} failed'),
      ],
    }),
  ];
}

/** Unit record panels for the station matched by `station`. */
export function unitPanels(station: string): PanelItem[] {
  const W = `${station}, window="$window"`;
  return [
    row('Units'),
    stat({
      title: 'Last unit',
      description: 'When the station last recorded a unit (input or output), from GET /units.',
      unit: 'dateTimeFromNow',
      queries: [q(`station_last_unit_timestamp_seconds{${station}} * 1000`, 'last unit')],
    }),
    stat({
      title: 'Time since last unit',
      description:
        'Seconds since the latest unit record at the station; the StationSilent alert fires when this grows ' +
        'while the line is producing.',
      unit: 's',
      thresholds: [
        ['green', null],
        ['orange', 900],
        ['red', 1800],
      ],
      queries: [q(`time() - station_last_unit_timestamp_seconds{${station}}`, 'age')],
    }),
    stat({
      title: 'Unit serials',
      description: 'Distinct unit serials recorded at the station over $window.',
      unit: 'short',
      queries: [q(`station_unit_serials{${W}}`, 'serials')],
    }),
    table({
      title: 'Unit records by result',
      description:
        'Unit records over $window by direction and result (retests count again; null results are "unknown").',
      labels: [
        { label: 'direction', name: 'Direction' },
        { label: 'result', name: 'Result' },
      ],
      columns: [{ name: 'Records', unit: 'short', expr: `station_unit_records{${W}}` }],
      sortBy: { column: 'Records', desc: true },
      w: 12,
      h: 4,
    }),
    timeseries({
      title: 'Output records by result',
      description: 'Output records over $window by result, stacked: a growing fail share shows here first.',
      unit: 'short',
      min: 0,
      stack: true,
      queries: [q(`sum by (result) (station_unit_records{${W}, direction="output"})`, '{{result}}')],
      w: 24,
    }),
    timeseries({
      title: 'Units counted per hour, with their serials',
      description:
        'Output unit records per hour by result, from the cumulative counter station_units_total (each record ' +
        'counted once, whatever the windows). The points are exemplars: the serial of the newest unit counted; ' +
        "a click opens it at the data source's unit_serial link (the MES or traceability page, see " +
        'docs/metrics.md#exemplars). Exemplars need Prometheus with exemplar storage and an OpenMetrics or protobuf scrape.',
      unit: 'short',
      min: 0,
      queries: [
        {
          expr: `sum by (result) (rate(station_units_total{${station}, direction="output"}[$__rate_interval])) * 3600`,
          legend: '{{result}}',
          exemplar: true,
        },
      ],
      w: 24,
    }),
  ];
}
