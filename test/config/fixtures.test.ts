import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.ts';
import { NELSON_RULES } from '../../src/spc/rules.ts';
import { DEFAULT_CONNECTION } from '../../src/upstream/connection.ts';

const dir = fileURLToPath(new URL('../fixtures/config', import.meta.url));
const env = { FIXTURE_TOKEN: 'token-from-env', FIXTURE_HOST: 'stations.example.com' };
const fixtures = readdirSync(dir).sort();

function parseFixture(name: string) {
  return parseConfig(readFileSync(`${dir}/${name}`, 'utf8'), { env, baseDir: dir, source: name });
}

function expectedIssues(name: string): string[] {
  return readFileSync(`${dir}/${name}`, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('# expect: '))
    .map((line) => line.slice('# expect: '.length).replaceAll('<dir>', dir));
}

describe('bad config fixtures', () => {
  const bad = fixtures.filter((f) => f.endsWith('.bad.yaml'));

  it('has fixtures, each with expectations', () => {
    expect(bad.length).toBeGreaterThan(20);
    for (const name of bad) expect(expectedIssues(name), name).not.toEqual([]);
  });

  it.each(bad)('%s fails with exactly the expected issues', (name) => {
    let error: unknown;
    try {
      parseFixture(name);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual(expectedIssues(name));
    expect((error as ConfigError).message).toContain(name);
  });
});

describe('ok config fixtures', () => {
  it('every ok fixture parses', () => {
    const ok = fixtures.filter((f) => f.endsWith('.ok.yaml'));
    expect(ok.length).toBeGreaterThan(1);
    for (const name of ok) expect(() => parseFixture(name), name).not.toThrow();
  });

  it('minimal.ok.yaml gets every default', () => {
    expect(parseFixture('minimal.ok.yaml')).toEqual({
      upstream: {
        baseUrl: 'https://stations.example.com/api',
        token: { kind: 'inline', value: 'token-from-env' },
        timeoutMs: 30_000,
        concurrency: 4,
        maxRequestsPerSecond: 10,
        maxUrlLength: 8192,
        naiveTimeZone: 'record',
        maxFutureSkewMs: 300_000,
        retry: { maxAttempts: 3, baseMs: 500, maxDelayMs: 30_000 },
        circuitBreaker: { threshold: 5, probeIntervalMs: 30_000 },
        maxResponseBytes: 8 * 1024 * 1024,
        maxResponseBytesByEndpoint: {},
        tokenExpiryWarningMs: 3 * 86_400_000,
        connection: DEFAULT_CONNECTION,
      },
      discovery: {
        siteIds: [],
        stationIds: [],
        include: { sites: [], lines: [], stations: [] },
        exclude: { sites: [], lines: [], stations: [] },
        refreshIntervalMs: 600_000,
      },
      windows: [
        { name: '1h', kind: 'rolling', durationMs: 3_600_000 },
        { name: '24h', kind: 'rolling', durationMs: 86_400_000 },
      ],
      summary: {
        enabled: true,
        intervalMs: 60_000,
        maxStalenessMs: 300_000,
        levels: ['station', 'group', 'line', 'site'],
        yieldScale: 'ratio',
        aggregateOver: 'all_stations',
        skipIdle: true,
      },
      measurements: {
        enabled: false,
        intervalMs: 60_000,
        maxStalenessMs: 300_000,
        names: [],
        minSamples: 30,
        overlapMs: 300_000,
        maxRecordsPerRequest: 20_000,
        rereadIntervalMs: 3_600_000,
        retentionMs: 86_400_000,
        attributes: { pass: ['PASS', 'OK'], fail: ['FAIL', 'NG', 'NOK'] },
        control: {
          names: [],
          evaluationWindowMs: 3_600_000,
          rules: NELSON_RULES,
          cusum: { enabled: true, k: 0.625, h: 10, cap: 2.5, fir: true },
          ewma: { enabled: true, lambda: 0.1, L: 4.5 },
          compensate: true,
          holdMs: 3_600_000,
        },
        histograms: { enabled: true, schema: 8, maxBuckets: 160, maxNames: 10 },
        statistics: {
          default: ['samples', 'mean', 'stddev', 'out_of_spec', 'ppk', 'attributes'],
          windows: new Map(),
        },
        bySlot: true,
      },
      units: {
        enabled: true,
        intervalMs: 60_000,
        maxStalenessMs: 300_000,
        overlapMs: 300_000,
        rereadIntervalMs: 3_600_000,
        cusum: {
          enabled: true,
          arl0: 2_000_000,
          settleMs: 1_200_000,
          oddsRatios: { firstPassYield: 3, finalYield: 4.75, retryRate: 2.25 },
          baseline: { windowMs: 7 * 86_400_000, lagMs: 3 * 86_400_000, prior: 500 },
          stationKinds: ['retry_ratio'],
          lineKinds: ['first_pass_yield', 'final_yield', 'retry_ratio'],
          statistic: false,
        },
      },
      targets: {
        enabled: true,
        intervalMs: 60_000,
        default: { firstPassYield: 0.9, finalYield: 0.95, retryRate: 0.1 },
        rules: [],
      },
      products: { label: false, allow: [] },
      planning: { refreshMs: new Map(), maxRefreshMs: 900_000, retryReserve: 0.05, maxSeries: undefined },
      sharding: { shard: undefined, maxRequestsPerSecond: undefined },
      server: { listenAddress: ':9732' },
      log: { level: 'info' },
    });
  });

  it('full.ok.yaml maps every key', () => {
    const config = parseFixture('full.ok.yaml');
    expect(config.upstream).toEqual({
      baseUrl: 'https://stations.example.com/api',
      token: { kind: 'file', path: `${dir}/secrets/station-token` },
      timeoutMs: 90_000,
      concurrency: 8,
      maxRequestsPerSecond: 2.5,
      maxUrlLength: 4096,
      naiveTimeZone: 'Asia/Shanghai',
      maxFutureSkewMs: 120_000,
      retry: { maxAttempts: 4, baseMs: 250, maxDelayMs: 10_000 },
      circuitBreaker: { threshold: 3, probeIntervalMs: 60_000 },
      maxResponseBytes: 1_048_576,
      maxResponseBytesByEndpoint: { metrics: 8_388_608 },
      tokenExpiryWarningMs: 86_400_000,
      connection: {
        tls: {
          caFile: `${dir}/secrets/upstream-ca.crt`,
          certFile: undefined,
          keyFile: undefined,
          serverName: 'stations.internal',
          insecureSkipVerify: false,
          minVersion: 'TLS13',
          maxVersion: 'TLS13',
        },
        proxy: {
          kind: 'url',
          url: 'http://proxy.example.com:3128/',
          noProxy: 'localhost,.internal,10.0.0.0',
        },
        proxyConnectHeader: {
          'Proxy-Authorization': ['Basic dXNlcjpwYXNz'],
          'X-Plant': ['berlin', 'line-1'],
        },
        followRedirects: false,
      },
    });
    expect(config.discovery.siteIds).toEqual(['65a1b2c3d4e5f6a7b8c9d0e1']);
    expect(config.discovery.stationIds).toEqual(['65A1B2C3D4E5F6A7B8C9D0E2']);
    expect(config.discovery.refreshIntervalMs).toBe(3_600_000);
    expect(config.windows).toEqual([
      { name: '1h', kind: 'rolling', durationMs: 3_600_000 },
      { name: '8h', kind: 'rolling', durationMs: 28_800_000 },
      { name: 'shift', kind: 'shift', timezone: 'Europe/Berlin', shiftStarts: ['06:00', '14:00', '22:00'] },
      { name: 'today', kind: 'today', timezone: 'America/Chicago' },
      { name: '500ms', kind: 'rolling', durationMs: 500 },
    ]);
    expect(config.summary).toEqual({
      enabled: false,
      intervalMs: 120_000,
      maxStalenessMs: 600_000,
      levels: ['line', 'station'],
      yieldScale: 'percent',
      aggregateOver: 'exported_stations',
      skipIdle: false,
    });
    expect(config.measurements).toEqual({
      enabled: true,
      intervalMs: 30_000,
      maxStalenessMs: 300_000,
      names: [
        { name: 'voltage_3v3', minSamples: 20, capabilityMethod: 'percentile' },
        { name: 'current_draw', minSamples: 50, capabilityMethod: 'box-cox' },
      ],
      minSamples: 20,
      overlapMs: 600_000,
      maxRecordsPerRequest: 1000,
      rereadIntervalMs: 1_800_000,
      retentionMs: 172_800_000,
      attributes: { pass: ['GOOD'], fail: ['BAD', 'NG'] },
      control: {
        names: [
          {
            pattern: /^(?:voltage_.*)$/,
            baseline: { kind: 'rolling', durationMs: 172_800_000 },
            minSamples: 10,
            cusum: { enabled: true, k: 0.5, h: 10, cap: 4, fir: false },
            ewma: { enabled: false, lambda: 0.2, L: 3 },
            byProduct: false,
          },
          {
            pattern: /^(?:current_draw)$/,
            baseline: { kind: 'given', center: 1, ucl: 2, lcl: 0 },
            minSamples: 10,
            cusum: { enabled: true, k: 0.5, h: 6, cap: 4, fir: false },
            ewma: { enabled: false, lambda: 0.2, L: 2.5 },
            byProduct: false,
          },
        ],
        evaluationWindowMs: 1_800_000,
        rules: { ...NELSON_RULES, 2: { enabled: true, points: 8 }, 4: { enabled: false, points: 14 } },
        cusum: { enabled: true, k: 0.5, h: 10, cap: 4, fir: false },
        ewma: { enabled: false, lambda: 0.2, L: 3 },
        compensate: false,
        holdMs: 1_800_000,
      },
      histograms: { enabled: true, schema: 5, maxBuckets: 80, maxNames: 1 },
      statistics: { default: ['samples', 'mean', 'min', 'max'], windows: new Map([['8h', ['samples']]]) },
      bySlot: false,
    });
    expect(config.units).toEqual({
      enabled: false,
      intervalMs: 300_000,
      maxStalenessMs: 3_600_000,
      overlapMs: 60_000,
      rereadIntervalMs: 7_200_000,
      cusum: {
        enabled: false,
        arl0: 1_000_000,
        settleMs: 1_800_000,
        oddsRatios: { firstPassYield: 2.5, finalYield: 4, retryRate: 2 },
        baseline: { windowMs: 3 * 86_400_000, lagMs: 4 * 3_600_000, prior: 200 },
        stationKinds: ['final_yield', 'retry_ratio'],
        lineKinds: ['final_yield'],
        statistic: true,
      },
    });
    expect(config.targets.intervalMs).toBe(300_000);
    expect(config.targets.default).toEqual({ firstPassYield: 0.92, finalYield: 0.97, retryRate: 0.08 });
    expect(config.targets.rules.map((r) => [r.site?.source, r.line?.source, r.station?.source])).toEqual([
      ['^(?:Austin)$', '^(?:SMT.*)$', undefined],
      [undefined, undefined, '^(?:ICT-.*)$'],
    ]);
    expect(config.targets.rules.map((r) => [r.finalYield, r.retryRate])).toEqual([
      [0.99, undefined],
      [undefined, 0.2],
    ]);
    expect(config.planning).toEqual({
      refreshMs: new Map([['8h', 600_000]]),
      maxRefreshMs: 1_200_000,
      retryReserve: 0.1,
      maxSeries: 50_000,
    });
    expect(config.sharding).toEqual({ shard: { index: 1, total: 3 }, maxRequestsPerSecond: 1.5 });
    expect(config.server.listenAddress).toBe('127.0.0.1:0');
    expect(config.log.level).toBe('debug');
  });

  it('full.ok.yaml compiles anchored filters, with $$ as a literal $', () => {
    const { include, exclude } = parseFixture('full.ok.yaml').discovery;
    expect(include.sites[0]?.test('Berlin')).toBe(true);
    expect(include.sites[0]?.test('Berlin-2')).toBe(false);
    expect(include.lines[0]?.source).toBe('^(?:Line \\d+$)$');
    expect(include.lines[0]?.test('Line 12')).toBe(true);
    expect(exclude.stations[0]?.test('ICT-01-spare')).toBe(true);
    expect(exclude.stations[0]?.test('ICT-01-spare-x')).toBe(false);
  });
});
