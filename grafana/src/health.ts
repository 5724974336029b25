/**
 * Exporter health: is the exporter scraped, is the upstream answering, is the cached data fresh,
 * and what does polling cost. Built on the `station_exporter_*` self-metrics and `up`.
 */
import { BigValueTextMode } from '@grafana/grafana-foundation-sdk/common';
import { MappingType, type ValueMapping } from '@grafana/grafana-foundation-sdk/dashboard';
import { type Dashboard, dashboard, type PanelItem } from './dashboard.ts';
import { dashboardLink, UID } from './links.ts';
import { row, type Steps, stat, timeseries } from './panels.ts';
import { q } from './query.ts';
import { datasourceVariable, labelValues } from './variables.ts';

const SEL = 'job="$job", instance=~"$instance"';
const UP_MAPPINGS: ValueMapping[] = [
  {
    type: MappingType.ValueToText,
    options: { '0': { text: 'DOWN', color: 'red', index: 0 }, '1': { text: 'UP', color: 'green', index: 1 } },
  },
];
const UP_STEPS: Steps = [
  ['red', null],
  ['green', 1],
];

function rate(metric: string, by: string): string {
  return `sum by (${by}) (rate(${metric}{${SEL}}[$__rate_interval]))`;
}

function quantile(phi: number, by: string): string {
  return `histogram_quantile(${phi}, ${rate('station_exporter_upstream_request_duration_seconds_bucket', `le, ${by}`)})`;
}

function statusPanels(): PanelItem[] {
  return [
    row('Status'),
    stat({
      title: 'Scraped',
      description: 'Prometheus `up`: whether the last scrape of each exporter instance succeeded.',
      unit: 'none',
      mappings: UP_MAPPINGS,
      thresholds: UP_STEPS,
      queries: [q(`up{${SEL}}`, '{{instance}}')],
    }),
    stat({
      title: 'Upstream',
      description: 'Whether the last request round to the Station Data Query Service succeeded.',
      unit: 'none',
      mappings: UP_MAPPINGS,
      thresholds: UP_STEPS,
      queries: [q(`station_exporter_upstream_up{${SEL}}`, '{{instance}}')],
    }),
    stat({
      title: 'Token expires',
      description:
        'When the bearer token expires (its exp claim). No data: the token is not a JWT with a readable exp.',
      unit: 'dateTimeFromNow',
      queries: [q(`station_exporter_token_expiry_timestamp_seconds{${SEL}} * 1000`, '{{instance}}')],
    }),
    stat({
      title: 'Token validity left',
      description: 'Time until the bearer token expires; the TokenExpiringSoon alert fires below 7 days.',
      unit: 's',
      thresholds: [
        ['red', null],
        ['orange', 86400],
        ['green', 7 * 86400],
      ],
      queries: [q(`station_exporter_token_expiry_timestamp_seconds{${SEL}} - time()`, '{{instance}}')],
    }),
    stat({
      title: 'Series exported',
      description: 'Series in the last published snapshot of collector data (self-metrics excluded).',
      unit: 'short',
      queries: [q(`station_exporter_series{${SEL}}`, '{{instance}}')],
    }),
    stat({
      title: 'Version',
      description: 'Exporter version and Node.js version, from station_exporter_build_info.',
      unit: 'none',
      textMode: BigValueTextMode.Name,
      queries: [q(`station_exporter_build_info{${SEL}}`, '{{version}} ({{node_version}})')],
    }),
  ];
}

function collectorPanels(): PanelItem[] {
  return [
    row('Collectors'),
    timeseries({
      title: 'Collector success',
      description:
        'Whether the last poll of each collector succeeded (1) or failed (0), as seen by the scheduler.',
      unit: 'none',
      min: 0,
      max: 1,
      w: 6,
      queries: [q(`station_exporter_collector_success{${SEL}}`, '{{collector}} {{instance}}')],
    }),
    timeseries({
      title: 'Collector poll duration',
      description:
        'Wall-clock duration of the last poll of each collector; near the interval means falling behind.',
      unit: 's',
      min: 0,
      w: 6,
      queries: [q(`station_exporter_collector_duration_seconds{${SEL}}`, '{{collector}} {{instance}}')],
    }),
    timeseries({
      title: 'Collector data age',
      description:
        'Age of the cached data of each collector at scrape time. It saws up to one interval when healthy; ' +
        'beyond 5 intervals the data is dropped (StationExporterStaleData).',
      unit: 's',
      min: 0,
      w: 6,
      queries: [q(`station_exporter_collector_data_age_seconds{${SEL}}`, '{{collector}} {{instance}}')],
    }),
    timeseries({
      title: 'Collector data age in intervals',
      description:
        'Age of the cached data of each collector divided by its configured polling interval ' +
        '(station_exporter_collector_interval_seconds): below 2 when healthy; StationExporterStaleData fires above 5.',
      unit: 'none',
      min: 0,
      w: 6,
      thresholds: [
        ['green', null],
        ['orange', 2],
        ['red', 5],
      ],
      queries: [
        q(
          `station_exporter_collector_data_age_seconds{${SEL}}` +
            ` / on (job, instance, collector) station_exporter_collector_interval_seconds{${SEL}}`,
          '{{collector}} {{instance}}',
        ),
      ],
    }),
    timeseries({
      title: 'Level entities skipped',
      description:
        'Sites, lines and groups whose summary was skipped in the last poll (e.g. a URL too long for all ' +
        'their station ids), by level and reason.',
      unit: 'short',
      min: 0,
      queries: [
        q(`sum by (level, reason) (station_exporter_levels_skipped{${SEL}})`, '{{level}} {{reason}}'),
      ],
    }),
    timeseries({
      title: 'Stations inaccessible',
      description: 'Configured station ids that the bearer token cannot see, from the last topology refresh.',
      unit: 'short',
      min: 0,
      queries: [q(`station_exporter_stations_inaccessible{${SEL}}`, '{{instance}}')],
    }),
  ];
}

function upstreamPanels(): PanelItem[] {
  const requests = 'station_exporter_upstream_requests_total';
  return [
    row('Upstream requests'),
    timeseries({
      title: 'Requests by outcome',
      description: 'Upstream request rate by status class (2xx, 4xx, 5xx, timeout, network, invalid_body).',
      unit: 'reqps',
      min: 0,
      stack: true,
      queries: [q(rate(requests, 'status_class'), '{{status_class}}')],
    }),
    timeseries({
      title: 'Requests by endpoint',
      description: 'Upstream request rate by endpoint, all outcomes.',
      unit: 'reqps',
      min: 0,
      stack: true,
      queries: [q(rate(requests, 'endpoint'), '{{endpoint}}')],
    }),
    timeseries({
      title: 'Request latency quantiles',
      description:
        'Median, 90th and 99th percentile of upstream request duration (body included), all endpoints.',
      unit: 's',
      min: 0,
      queries: [
        q(quantile(0.5, 'job'), 'p50'),
        q(quantile(0.9, 'job'), 'p90'),
        q(quantile(0.99, 'job'), 'p99'),
      ],
    }),
    timeseries({
      title: 'p99 latency by endpoint',
      description: '99th percentile of upstream request duration per endpoint.',
      unit: 's',
      min: 0,
      queries: [q(quantile(0.99, 'endpoint'), '{{endpoint}}')],
    }),
    timeseries({
      title: 'Response bytes',
      description: 'Bytes of upstream response bodies received per second, by endpoint.',
      unit: 'Bps',
      min: 0,
      stack: true,
      queries: [q(rate('station_exporter_upstream_response_bytes_total', 'endpoint'), '{{endpoint}}')],
    }),
    timeseries({
      title: 'Records skipped',
      description:
        'Upstream records dropped per second because they did not match the expected shape, by endpoint and ' +
        'reason (e.g. bad_time, missing_field).',
      unit: 'cps',
      min: 0,
      queries: [
        q(rate('station_exporter_records_skipped_total', 'endpoint, reason'), '{{endpoint}} {{reason}}'),
      ],
    }),
  ];
}

function exposurePanels(): PanelItem[] {
  return [
    row('Scrapes'),
    timeseries({
      title: 'Scrapes',
      description: 'Scrapes of /metrics per second, by exposition format and content encoding.',
      unit: 'reqps',
      min: 0,
      w: 8,
      queries: [q(rate('station_exporter_scrapes_total', 'format, encoding'), '{{format}} {{encoding}}')],
    }),
    timeseries({
      title: 'Series',
      description: 'Series in the last published snapshot; a step down means stations or windows went away.',
      unit: 'short',
      min: 0,
      w: 8,
      queries: [q(`station_exporter_series{${SEL}}`, '{{instance}}')],
    }),
    timeseries({
      title: 'Render duration',
      description: 'Time spent rendering the last snapshot into both exposition formats (once per poll).',
      unit: 's',
      min: 0,
      w: 8,
      queries: [q(`station_exporter_render_duration_seconds{${SEL}}`, '{{instance}}')],
    }),
  ];
}

/** The exporter health dashboard. */
export function healthDashboard(): Dashboard {
  return dashboard({
    uid: UID.health,
    title: 'Station exporter / Exporter health',
    description:
      'Health of station-exporter itself: scrapes, upstream requests, collector freshness, token expiry.',
    time: 'now-3h',
    variables: [
      datasourceVariable(),
      labelValues({
        name: 'job',
        label: 'Job',
        description: 'Prometheus job scraping the exporter.',
        selector: 'station_exporter_build_info',
      }),
      labelValues({
        name: 'instance',
        label: 'Instance',
        description: 'Exporter instances of the job.',
        selector: 'station_exporter_build_info{job="$job"}',
        multi: true,
      }),
    ],
    links: [dashboardLink('Plant overview', UID.overview, 'Yields of all sites and lines')],
    panels: [...statusPanels(), ...collectorPanels(), ...upstreamPanels(), ...exposurePanels()],
  });
}
