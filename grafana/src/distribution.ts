/**
 * The line dashboard's distribution section (docs/metrics.md#native-histograms): queries of the
 * `station_measurement_value` native histogram summed over the line's stations, so the share in
 * spec, the median and the 99th percentile describe the line's whole distribution rather than a
 * mean of station means. The series exist only when Prometheus runs with
 * `--enable-feature=native-histograms` (it then scrapes protobuf); otherwise these panels show
 * no data.
 */
import type { QueryVariableBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type { PanelItem } from './dashboard.ts';
import { row, timeseries } from './panels.ts';
import { q } from './query.ts';
import { labelValues } from './variables.ts';

/** The `distribution` variable: measurements with a native histogram on the line. */
export function distributionVariable(siteLine: string): QueryVariableBuilder {
  return labelValues({
    name: 'distribution',
    of: 'metric',
    label: 'Distribution',
    description:
      'Measurements with a native histogram on the line (exporter `measurements.histograms`; Prometheus with native histograms on).',
    selector: `station_measurement_value{${siteLine}}`,
  });
}

/**
 * The line's histogram of one measurement around each point of the graph: the stations' rates
 * over $__rate_interval summed (histograms of different resolutions merge at the coarsest). A
 * rate has the shape of the values' distribution, so quantiles and fractions read straight off it.
 */
function lineHistogram(siteLine: string, offset = ''): string {
  return `sum by (site, line) (rate(station_measurement_value{${siteLine}, metric="$distribution"}[$__rate_interval]${offset}))`;
}

/**
 * The line's spec limits as scalars for histogram_fraction: the narrowest limits any of its
 * stations reports for the measurement (stations normally share them).
 */
function limit(siteLine: string, which: 'lower' | 'upper'): string {
  const agg = which === 'lower' ? 'max' : 'min';
  return `scalar(${agg}(station_measurement_${which}_limit{${siteLine}, metric="$distribution"}))`;
}

/** Panels of the distribution section. */
export function distributionPanels(siteLine: string): PanelItem[] {
  const now = lineHistogram(siteLine);
  return [
    row('Measurement distribution (native histograms)'),
    timeseries({
      title: 'In-spec share: $distribution',
      description:
        'Share of the values measured on the whole line around each point that lie between the spec limits, ' +
        'from the summed native histogram (histogram_fraction; exact at bucket boundaries, interpolated within ' +
        'a bucket). Limits: the narrowest any station of the line reports. Needs Prometheus with native histograms.',
      unit: 'percentunit',
      max: 1,
      queries: [
        q(`histogram_fraction(${limit(siteLine, 'lower')}, ${limit(siteLine, 'upper')}, ${now})`, 'in spec'),
      ],
    }),
    timeseries({
      title: 'Median and 99th percentile: $distribution',
      description:
        "Median and 99th percentile of the line's values around each point (histogram_quantile over the summed " +
        'native histogram), with the spec limits. Needs Prometheus with native histograms.',
      unit: 'none',
      queries: [
        q(`histogram_quantile(0.5, ${now})`, 'median'),
        q(`histogram_quantile(0.99, ${now})`, '99th percentile'),
        q(`max(station_measurement_lower_limit{${siteLine}, metric="$distribution"})`, 'lower limit'),
        q(`min(station_measurement_upper_limit{${siteLine}, metric="$distribution"})`, 'upper limit'),
      ],
    }).overrideByRegexp('limit$', [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }]),
    timeseries({
      title: 'Week over week: $distribution',
      description:
        "Median of the line's values against the same time a week earlier: a drift of the distribution shows " +
        'as the two lines parting (docs/metrics.md has the query over whole days). Needs Prometheus with native histograms.',
      unit: 'none',
      queries: [
        q(`histogram_quantile(0.5, ${now})`, 'median'),
        q(`histogram_quantile(0.5, ${lineHistogram(siteLine, ' offset 1w')})`, 'median, a week earlier'),
      ],
    }),
  ];
}
