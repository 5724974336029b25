import { describe, expect, it } from 'vitest';
import { Counter, Registry } from '../../src/exposition/client.ts';
import { registryFamilies, SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { checkMetrics, promtoolPath } from '../helpers/promtool.ts';
import { renderFamilies } from '../helpers/render.ts';
import { openMetricsProblems } from './openmetrics.ts';

const promtool = promtoolPath();

function setup(nowMs = 1_700_000_100_000) {
  const registry = new Registry();
  let now = nowMs;
  const m = new SelfMetrics(registry, {
    version: '1.2.3',
    commit: 'abc123',
    nodeVersion: 'v20.0.0',
    wallClock: () => now,
  });
  return { registry, m, setNow: (t: number) => (now = t) };
}

function exercise(m: ReturnType<typeof setup>['m']): void {
  m.setUpstreamUp(true);
  m.initEndpoints(['units']);
  m.observeRequest('metrics', { statusClass: '2xx', seconds: 0.2, bytes: 1024 });
  m.observeRequest('metrics', { statusClass: '5xx', seconds: 3, bytes: 0 });
  m.collectorResult('units', { ok: true, seconds: 1.5, nowMs: 1_700_000_000_000 });
  m.collectorResult('metrics', { ok: false, seconds: 2, nowMs: 1_700_000_050_000 });
  m.setCollectorInterval('units', 60);
  m.recordSkipped('metrics', 'invalid_record', 4);
  m.labelValuesRedacted('topology', 'secret', 2);
  m.setTokenExpiry(1_800_000_000);
  m.recordScrape('openmetrics', { gzip: true });
  m.setSnapshot(1234, 0.15);
  m.setLevelsSkipped([{ level: 'site', reason: 'url_too_long', count: 2 }]);
  m.setStationsInaccessible(3);
  m.setCircuitState('metrics', 'open');
  m.recordRetry('metrics', '429');
  m.setStationsRefused(5);
  m.setSummaryPartial(2);
  m.collectorRequests('units', 8, 2);
  m.setCollectorStale('units', { stale: true });
  m.recordReload({ ok: false, nowMs: 1_700_000_000_000 });
  m.setTokenExpiring(true);
  m.setTokenFileError(true);
  m.recordLimitsFile({ ok: true });
  m.recordLimitsFile({ ok: false });
  m.recordLimitsFile({ ok: false });
}

async function text(registry: Registry): Promise<string> {
  return renderFamilies(await registryFamilies(registry), 'text');
}

describe('SelfMetrics', () => {
  it('exposes every self-metric with HELP text, the station_exporter_ prefix and its labels', async () => {
    const { registry, m } = setup();
    exercise(m);
    const out = await text(registry);
    for (const line of [
      'station_exporter_upstream_up 1',
      'station_exporter_collector_success{collector="units"} 1',
      'station_exporter_collector_success{collector="metrics"} 0',
      'station_exporter_collector_duration_seconds{collector="metrics"} 2',
      'station_exporter_collector_last_success_timestamp_seconds{collector="units"} 1700000000',
      'station_exporter_collector_data_age_seconds{collector="units"} 100',
      'station_exporter_collector_interval_seconds{collector="units"} 60',
      'station_exporter_upstream_requests_total{endpoint="metrics",status_class="5xx"} 1',
      'station_exporter_upstream_requests_total{endpoint="units",status_class="timeout"} 0',
      'station_exporter_upstream_request_duration_seconds_bucket{endpoint="metrics",le="0.25"} 1',
      'station_exporter_upstream_request_duration_seconds_bucket{endpoint="metrics",le="+Inf"} 2',
      'station_exporter_upstream_request_duration_seconds_sum{endpoint="metrics"} 3.2',
      'station_exporter_upstream_request_duration_seconds_count{endpoint="metrics"} 2',
      'station_exporter_upstream_response_bytes_total{endpoint="metrics"} 1024',
      'station_exporter_records_skipped_total{endpoint="metrics",reason="invalid_record"} 4',
      'station_exporter_label_values_redacted_total{collector="topology",reason="secret"} 2',
      'station_exporter_token_expiry_timestamp_seconds 1800000000',
      'station_exporter_build_info{version="1.2.3",commit="abc123",node_version="v20.0.0"} 1',
      'station_exporter_scrapes_total{format="openmetrics",encoding="gzip"} 1',
      'station_exporter_series 1234',
      'station_exporter_render_duration_seconds 0.15',
      'station_exporter_levels_skipped{level="site",reason="url_too_long"} 2',
      'station_exporter_stations_inaccessible 3',
      'station_exporter_upstream_circuit_state{endpoint="metrics"} 2',
      'station_exporter_upstream_retries_total{endpoint="metrics",status_class="429"} 1',
      'station_exporter_stations_refused 5',
      'station_exporter_aggregate_requests_partial 2',
      'station_exporter_collector_requests_total{collector="units"} 8',
      'station_exporter_collector_request_failures_total{collector="units"} 2',
      'station_exporter_collector_failed_requests_ratio{collector="units"} 0.25',
      'station_exporter_collector_stale{collector="units"} 1',
      'station_exporter_config_last_reload_successful 0',
      'station_exporter_token_expiring 1',
      'station_exporter_token_file_error 1',
      'station_exporter_limits_file_last_reload_successful 0',
      'station_exporter_limits_file_reload_failures_total 2',
    ]) {
      expect(out.split('\n')).toContain(line);
    }
    expect(out).not.toContain('collector_data_age_seconds{collector="metrics"}');
    const helps = out.split('\n').filter((l) => l.startsWith('# HELP '));
    expect(helps).toHaveLength(32);
    for (const h of helps) expect(h).toMatch(/^# HELP station_exporter_\w+ \S.{20,}/);
  });

  it('computes the data age from the injected clock at each scrape', async () => {
    const { registry, m, setNow } = setup(10_000);
    m.collectorResult('units', { ok: true, seconds: 1, nowMs: 4_000 });
    expect(await text(registry)).toContain(
      'station_exporter_collector_data_age_seconds{collector="units"} 6\n',
    );
    setNow(70_500);
    expect(await text(registry)).toContain(
      'station_exporter_collector_data_age_seconds{collector="units"} 66.5\n',
    );
    m.forgetCollector('units');
    expect(await text(registry)).not.toContain('collector="units"');
  });

  it('keeps one configured interval per collector until the collector is forgotten', async () => {
    const { registry, m } = setup();
    m.setCollectorInterval('topology', 600);
    m.setCollectorInterval('summary', 60);
    m.setCollectorInterval('units', 30);
    m.setCollectorInterval('units', 45);
    const series = async () =>
      (await text(registry))
        .split('\n')
        .filter((l) => l.startsWith('station_exporter_collector_interval_seconds{'));
    expect(await series()).toEqual([
      'station_exporter_collector_interval_seconds{collector="topology"} 600',
      'station_exporter_collector_interval_seconds{collector="summary"} 60',
      'station_exporter_collector_interval_seconds{collector="units"} 45',
    ]);
    m.forgetCollector('units');
    expect(await series()).toEqual([
      'station_exporter_collector_interval_seconds{collector="topology"} 600',
      'station_exporter_collector_interval_seconds{collector="summary"} 60',
    ]);
  });

  it('leaves the token expiry unset when unknown', async () => {
    const { registry, m } = setup();
    expect(await text(registry)).not.toMatch(/^station_exporter_token_expiry_timestamp_seconds /m);
    m.setTokenExpiry(5);
    expect(await text(registry)).toMatch(/^station_exporter_token_expiry_timestamp_seconds 5$/m);
    m.setTokenExpiry(undefined);
    expect(await text(registry)).not.toMatch(/^station_exporter_token_expiry_timestamp_seconds /m);
  });

  it('replaces skipped levels with those of the last poll', async () => {
    const { registry, m } = setup();
    m.setLevelsSkipped([{ level: 'site', reason: 'url_too_long', count: 2 }]);
    m.setLevelsSkipped([{ level: 'line', reason: 'url_too_long', count: 1 }]);
    const out = await text(registry);
    expect(out).toContain('station_exporter_levels_skipped{level="line",reason="url_too_long"} 1');
    expect(out).not.toContain('level="site"');
  });

  it('does not touch the global registry', async () => {
    const { register } = await import('@prometheus-io/client');
    const before = (await register.getMetricsAsJSON()).length;
    exercise(setup().m);
    expect((await register.getMetricsAsJSON()).length).toBe(before);
  });

  it.skipIf(!promtool && !process.env.CI)('renders text that promtool accepts', async () => {
    const { registry, m } = setup();
    exercise(m);
    const r = checkMetrics(await text(registry));
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  });

  it('renders structurally valid OpenMetrics with units and counter family names', async () => {
    const { registry, m } = setup();
    exercise(m);
    const om = `${renderFamilies(await registryFamilies(registry), 'openmetrics')}# EOF\n`;
    expect(openMetricsProblems(om)).toEqual([]);
    expect(om).toContain('# TYPE station_exporter_upstream_requests counter\n');
    expect(om).toContain('# UNIT station_exporter_upstream_request_duration_seconds seconds\n');
    expect(om).toContain('# UNIT station_exporter_upstream_response_bytes bytes\n');
  });
});

describe('registryFamilies', () => {
  it('names counters with _total even when prom-client does not', async () => {
    const registry = new Registry();
    new Counter({ name: 'jobs', help: 'Jobs.', registers: [registry] }).inc(2);
    const [fam] = await registryFamilies(registry);
    expect(fam?.desc).toEqual({ name: 'jobs_total', kind: 'counter', help: 'Jobs.' });
    expect(renderFamilies(await registryFamilies(registry), 'text')).toBe(
      '# HELP jobs_total Jobs.\n# TYPE jobs_total counter\njobs_total 2\n',
    );
  });

  it('escapes label values from prom-client', async () => {
    const registry = new Registry();
    new Counter({ name: 'x_total', help: 'h', labelNames: ['v'], registers: [registry] }).inc({
      v: 'a"b\\c\nd',
    });
    expect(renderFamilies(await registryFamilies(registry), 'text')).toContain(
      'x_total{v="a\\"b\\\\c\\nd"} 1\n',
    );
  });
});
