import { z } from 'zod';
import { controlSchema } from '../spc/config.ts';
import { isValidTimeZone } from '../time/zones.ts';
import { ENDPOINT_NAMES } from '../upstream/endpoints.ts';
import { always, anchoredRegex, duration, hexId, isRecord, reportDuplicates } from './fields.ts';
import { targetsSchema } from './targets-schema.ts';
import { tokenProblem } from './token-text.ts';
import { windowsSchema } from './windows-schema.ts';

export type { WindowSpec } from './windows-schema.ts';

/*
 * The one definition of the configuration file. Input keys are the snake_case YAML keys; each section
 * transforms into the camelCase shape the rest of the exporter uses, with durations in milliseconds
 * and regular expressions compiled. Every key carries a description: docs/config.md is generated from them.
 * The `windows` section lives in windows-schema.ts.
 */

/** Where the bearer token comes from. A file path is absolute once the loader has resolved it. */
export type SecretSource = { kind: 'inline'; value: string } | { kind: 'file'; path: string };

/** The summary levels, finest first. */
export const SUMMARY_LEVELS = ['station', 'group', 'line', 'site'] as const;
/** Aggregation levels at which station summaries are exported. */
export type SummaryLevel = (typeof SUMMARY_LEVELS)[number];

const baseUrl = z
  .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an http or https URL') })
  .transform((text, ctx) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
      return z.NEVER;
    }
    // Credentials in the URL would end up in logs; the token belongs in token/token_file.
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials; use token or token_file' });
      return z.NEVER;
    }
    if (url.search !== '' || url.hash !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain a query or fragment' });
      return z.NEVER;
    }
    return url.href.replace(/\/+$/, '');
  })
  .meta({ 'x-type': 'URL' });

const retrySchema = z
  .strictObject({
    max_attempts: z
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe('Attempts per request, the first included; 1 turns retries off.'),
    base_delay: duration()
      .prefault('500ms')
      .describe('Backoff before the first retry; doubles per retry, with full jitter.'),
    max_delay: duration()
      .prefault('30s')
      .describe('Longest wait before a retry; a `Retry-After` asking for more fails the request instead.'),
  })
  .prefault({})
  .transform((r) => ({ maxAttempts: r.max_attempts, baseMs: r.base_delay, maxDelayMs: r.max_delay }))
  .describe(
    'Retries of timeouts, connection resets, 502, 503, 504 and 429 (never 400, 401, 403, 404); each retry counts against the request rate.',
  );

const breakerSchema = z
  .strictObject({
    failure_threshold: z
      .int()
      .min(1)
      .default(5)
      .describe(
        'Failed attempts in a row (timeouts, resets, 5xx, 429) that open the circuit of an endpoint.',
      ),
    probe_interval: duration()
      .prefault('30s')
      .describe('While a circuit is open, one probe request is let through this often.'),
  })
  .prefault({})
  .transform((b) => ({ threshold: b.failure_threshold, probeIntervalMs: b.probe_interval }))
  .describe('Circuit breaker per endpoint: stops the full load on a failing upstream and probes it slowly.');

const upstreamSchema = z
  .strictObject({
    base_url: baseUrl.describe(
      'Base URL of the Station Data Query Service, e.g. `https://stations.example.com/api`.',
    ),
    token: z
      .string()
      .min(1, 'must not be empty')
      .superRefine((t, ctx) => {
        const problem = tokenProblem(t);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .describe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the config's ${VAR} syntax.
        'Bearer token, usually `${STATION_TOKEN}`. Exactly one of `token` and `token_file` is required.',
      ),
    token_file: z
      .string()
      .min(1, 'must not be empty')
      .optional()
      .describe(
        'File holding the bearer token (surrounding whitespace is ignored). Relative paths resolve against the ' +
          "config file's directory. Re-read whenever it changes, so the token can be rotated without a restart.",
      ),
    timeout: duration()
      .prefault('30s')
      .describe(
        'Total deadline of one upstream request attempt, body included: a slow-drip answer is cut off after it.',
      ),
    retry: retrySchema,
    circuit_breaker: breakerSchema,
    max_response_bytes: z
      .int()
      .min(1024)
      .default(64 * 1024 * 1024)
      .describe(
        'Largest answer accepted, in bytes, checked while reading and again after decompression; a larger answer fails as `too_large`.',
      ),
    max_response_bytes_by_endpoint: z
      .partialRecord(z.enum(ENDPOINT_NAMES), z.int().min(1024))
      .default({})
      .describe(
        'Overrides of `max_response_bytes` per endpoint (`sites`, `site`, `station_summary`, `metrics`, `units`).',
      ),
    token_expiry_warning: duration()
      .prefault('3d')
      .describe(
        'A JWT token expiring within this margin raises `station_exporter_token_expiring` and a warning, before requests fail.',
      ),
    concurrency: z.int().min(1).max(64).default(4).describe('Upstream requests in flight at once.'),
    max_requests_per_second: z
      .number()
      .positive()
      .default(10)
      .describe('Ceiling on the upstream request rate, to stay polite to a shared service.'),
    max_url_length: z
      .int()
      .min(1024)
      .default(8192)
      .describe('Longest request URL in bytes; requests for many stations are split to stay below it.'),
    naive_time_zone: z
      .string()
      .refine((v) => v === 'record' || v === 'UTC' || isValidTimeZone(v), {
        error: (iss) => `must be record, UTC or an IANA time zone, got "${String(iss.input)}"`,
      })
      .default('record')
      .describe(
        'Zone of a record time (`time_created`) written without an offset: `record` reads it in the ' +
          "record's own `tz` (an IANA name or an offset such as `+02:00`; UTC when the record has no " +
          'readable `tz`), `UTC`, or an IANA zone name for every record.',
      ),
    max_future_skew: duration()
      .prefault('5m')
      .describe(
        'Records dated more than this after the poll are counted (`..._future_records_total`), logged ' +
          'and left out of every statistic until their time has come.',
      ),
  })
  .superRefine((u, ctx) => {
    if (!isRecord(u)) return;
    if (u.token !== undefined && u.token_file !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'set only one of token and token_file' });
    } else if (u.token === undefined && u.token_file === undefined) {
      ctx.addIssue({ code: 'custom', message: 'one of token or token_file is required' });
    }
  }, always)
  .transform((u) => ({
    baseUrl: u.base_url,
    token: (u.token !== undefined
      ? { kind: 'inline', value: u.token }
      : { kind: 'file', path: u.token_file ?? '' }) satisfies SecretSource as SecretSource,
    timeoutMs: u.timeout,
    concurrency: u.concurrency,
    maxRequestsPerSecond: u.max_requests_per_second,
    maxUrlLength: u.max_url_length,
    naiveTimeZone: u.naive_time_zone,
    maxFutureSkewMs: u.max_future_skew,
    retry: u.retry,
    circuitBreaker: u.circuit_breaker,
    maxResponseBytes: u.max_response_bytes,
    maxResponseBytesByEndpoint: u.max_response_bytes_by_endpoint,
    tokenExpiryWarningMs: u.token_expiry_warning,
  }))
  .describe('The Station Data Query Service to read from.');

function patternList(level: string) {
  return z
    .array(anchoredRegex())
    .prefault([])
    .describe(`Regular expressions matched against each ${level}'s name or id.`);
}

function nameFilter(verb: string) {
  return z
    .strictObject({
      sites: patternList('site'),
      lines: patternList('line'),
      stations: patternList('station'),
    })
    .prefault({})
    .describe(
      `${verb} only the sites, lines and stations whose name or id fully matches one of these regular expressions.`,
    );
}

function idList(description: string) {
  return z
    .array(hexId())
    .default([])
    .superRefine((ids, ctx) => reportDuplicates(ids, ctx, (id) => id, 'id'), always)
    .describe(description);
}

const discoverySchema = z
  .strictObject({
    site_ids: idList(
      'Sites to export (GET /sites/{id} each). Empty: every site the token may access (GET /sites).',
    ),
    station_ids: idList(
      'When not empty, export only these stations; any that are not accessible are reported.',
    ),
    include: nameFilter('Export'),
    exclude: nameFilter('Skip').describe(
      'Skip the sites, lines and stations whose name or id fully matches one of these regular expressions; ' +
        'applied after `include`.',
    ),
    refresh_interval: duration()
      .prefault('10m')
      .describe('How often the site/line/station hierarchy is read again.'),
  })
  .transform((d) => ({
    siteIds: d.site_ids,
    stationIds: d.station_ids,
    include: d.include,
    exclude: d.exclude,
    refreshIntervalMs: d.refresh_interval,
  }))
  .prefault({})
  .describe('Which sites, lines and stations to export.');

/** A filter on names or ids per hierarchy level; regular expressions are anchored. */
export type NameFilter = z.output<typeof discoverySchema>['include'];

function interval(what: string) {
  return duration().prefault('1m').describe(`How often ${what} are polled.`);
}

function maxStaleness() {
  return duration()
    .optional()
    .describe(
      'How long the last good data is served when polls fail; past it the series are dropped. Default: 5 intervals.',
    );
}

const summarySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Export station summary statistics.'),
    interval: interval('station summaries'),
    max_staleness: maxStaleness(),
    levels: z
      .array(z.enum(SUMMARY_LEVELS))
      .min(1)
      .prefault([...SUMMARY_LEVELS])
      .superRefine((levels, ctx) => reportDuplicates(levels, ctx, (l) => l, 'level'), always)
      .describe('Aggregation levels to export: `station`, `group`, `line`, `site`.'),
    yield_scale: z
      .enum(['ratio', 'percent', 'auto'])
      .default('ratio')
      .describe(
        'Scale of the yields and rates the upstream sends: `ratio` (0-1), `percent` (0-100) or `auto` ' +
          '(decided per answer, see "Yield scale" in the README). The exporter always exports ratios; ' +
          'values that contradict the scale are dropped and counted (`reason="scale_mismatch"`).',
      ),
    aggregate_over: z
      .enum(['all_stations', 'exported_stations'])
      .default('all_stations')
      .describe(
        'Stations a group, line or site summary covers: `all_stations` of the element in the /sites ' +
          'hierarchy (discovery filters then only choose the station series), or only the `exported_stations`. ' +
          'The `*_covered_stations` and `*_stations` gauges show covered and total stations.',
      ),
    skip_idle: z
      .boolean()
      .default(true)
      .describe(
        'Skip summary requests for stations with no unit record entering or leaving the window since the ' +
          'previous answer (their summary cannot have changed); needs the units collector. A sample is re-asked to verify.',
      ),
  })
  .prefault({})
  .transform((s) => ({
    enabled: s.enabled,
    intervalMs: s.interval,
    maxStalenessMs: s.max_staleness ?? 5 * s.interval,
    levels: s.levels,
    yieldScale: s.yield_scale,
    aggregateOver: s.aggregate_over,
    skipIdle: s.skip_idle,
  }))
  .describe('Station summary statistics (yields, retry rate, unit counts) per window.');

const minSamples = z.int().min(2);

function rereadInterval() {
  return duration()
    .prefault('1h')
    .describe(
      'How often a poll re-reads the whole longest window instead of only the overlap, so that records ' +
        'arriving later than `overlap` are still picked up (and counted as late).',
    );
}

function attributeValues(defaults: string[]) {
  return z
    .array(z.string().min(1, 'must not be empty'))
    .default(defaults)
    .describe(`Values counted as this outcome; default ${defaults.map((d) => `\`${d}\``).join(', ')}.`);
}

const measurementName = z
  .union([
    z.string().min(1, 'must not be empty'),
    z.strictObject({
      name: z.string().min(1, 'must not be empty').describe('Measurement name.'),
      min_samples: minSamples
        .optional()
        .describe('Overrides `measurements.min_samples` for this measurement.'),
    }),
  ])
  .meta({ 'x-type': 'string or mapping' });

/** Windowed measurement statistics that can be selected per window (see collectors/measurements/selection.ts). */
export const WINDOW_STATISTICS = [
  'samples',
  'non_numeric',
  'mean',
  'min',
  'max',
  'stddev',
  'out_of_spec',
  'ppk',
  'cpk',
  'pp',
  'cp',
  'attributes',
  'capability_omitted',
] as const;
/** One windowed measurement statistic. */
export type WindowStatistic = (typeof WINDOW_STATISTICS)[number];

/** The statistics exported by default: what the dashboards and alerts use; min/max are opt-in. */
export const DEFAULT_WINDOW_STATISTICS: readonly WindowStatistic[] = [
  'samples',
  'mean',
  'stddev',
  'out_of_spec',
  'ppk',
  'attributes',
];

const statisticList = z
  .array(z.enum(WINDOW_STATISTICS))
  .superRefine((list, ctx) => reportDuplicates(list, ctx, (x) => x, 'statistic'), always);

const statisticsSchema = z
  .strictObject({
    default: statisticList
      .default([...DEFAULT_WINDOW_STATISTICS])
      .describe(
        `Windowed statistics exported for every window: any of ${WINDOW_STATISTICS.map((x) => `\`${x}\``).join(', ')}.`,
      ),
    windows: z
      .record(z.string(), statisticList)
      .default({})
      .describe(
        'Per window name, the statistics to export instead of `default` (an empty list exports none).',
      ),
  })
  .prefault({})
  .transform((s) => ({ default: s.default, windows: new Map(Object.entries(s.windows)) }))
  .describe('Which windowed measurement statistics to export, per window: the series budget.');

const measurementsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Export process capability statistics of measurements.'),
    interval: interval('measurements'),
    max_staleness: maxStaleness(),
    names: z
      .array(measurementName)
      .default([])
      .superRefine(
        (names, ctx) =>
          reportDuplicates(names, ctx, (n) => (typeof n === 'string' ? n : n?.name), 'measurement'),
        always,
      )
      .describe('Measurement names to export: a name, or `{ name, min_samples }`. Required when enabled.'),
    min_samples: minSamples.default(30).describe('Fewest samples in a window for which Ppk is exported.'),
    overlap: duration()
      .prefault('5m')
      .describe('How far back each poll re-reads, to catch records that arrive late.'),
    max_records_per_request: z
      .int()
      .min(1)
      .default(20_000)
      .describe(
        'Answers with this many records are assumed truncated and re-requested as smaller time spans.',
      ),
    reread_interval: rereadInterval(),
    retention: duration()
      .prefault('24h')
      .describe(
        'How long a known station, measurement and slot stays exported (samples 0, no statistics) after ' +
          'its last record left every window, so that "no samples" alerts keep working.',
      ),
    attributes: z
      .strictObject({
        pass: attributeValues(['PASS', 'OK']),
        fail: attributeValues(['FAIL', 'NG', 'NOK']),
      })
      .prefault({})
      .describe(
        'Values of attribute (pass/fail) tests, matched case-insensitively against the whole value; ' +
          'counted in `station_measurement_window_attribute_samples` by outcome.',
      ),
    control: controlSchema,
    statistics: statisticsSchema,
    by_slot: z
      .boolean()
      .default(true)
      .describe(
        'Export a `slot` label per test slot. `false` leaves the label out where a station has a single slot ' +
          '(stations with several slots keep it, so that no two series collide).',
      ),
  })
  .superRefine((m, ctx) => {
    if (!isRecord(m)) return;
    if (m.enabled === true && Array.isArray(m.names) && m.names.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'must not be empty when measurements are enabled',
        path: ['names'],
      });
    }
  }, always)
  .prefault({})
  .transform((m) => ({
    enabled: m.enabled,
    intervalMs: m.interval,
    maxStalenessMs: m.max_staleness ?? 5 * m.interval,
    names: m.names.map((n) =>
      typeof n === 'string'
        ? { name: n, minSamples: m.min_samples }
        : { name: n.name, minSamples: n.min_samples ?? m.min_samples },
    ),
    minSamples: m.min_samples,
    overlapMs: m.overlap,
    maxRecordsPerRequest: m.max_records_per_request,
    rereadIntervalMs: m.reread_interval,
    retentionMs: m.retention,
    attributes: {
      pass: m.attributes.pass.map((v) => v.toUpperCase()),
      fail: m.attributes.fail.map((v) => v.toUpperCase()),
    },
    control: m.control,
    statistics: m.statistics,
    bySlot: m.by_slot,
  }))
  .describe('Measurement statistics (process capability) per window.');

const unitsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Export unit counts by result and direction.'),
    interval: interval('units'),
    max_staleness: maxStaleness(),
    overlap: duration()
      .prefault('5m')
      .describe('How far back each poll re-reads, to catch records that arrive late.'),
    reread_interval: rereadInterval(),
  })
  .prefault({})
  .transform((u) => ({
    enabled: u.enabled,
    intervalMs: u.interval,
    maxStalenessMs: u.max_staleness ?? 5 * u.interval,
    overlapMs: u.overlap,
    rereadIntervalMs: u.reread_interval,
  }))
  .describe('Unit records (tested units by result).');

/*
 * Plant scale (issue 8): the request planner's and the series budget's settings, and sharding.
 */

const planningSchema = z
  .strictObject({
    refresh: z
      .record(z.string(), duration())
      .default({})
      .describe(
        'Per window name, a fixed summary refresh instead of the planned one, e.g. `{ 24h: 15m }`. ' +
          'Unset windows get a default that grows with their length (15m -> 1m, 1h -> 2m, 24h -> 10m).',
      ),
    max_refresh: duration()
      .prefault('15m')
      .describe('The longest refresh the planner may give any window when the budget is tight.'),
    retry_reserve: z
      .number()
      .min(0)
      .max(0.5)
      .default(0.05)
      .describe('Share of the request budget kept free for retries; the plan fills the rest.'),
    max_series: z
      .int()
      .min(1)
      .optional()
      .describe(
        'Most series the exporter serves. Past it, whole families are dropped, lowest priority first ' +
          '(see README "Running at scale"); unset: no limit.',
      ),
  })
  .prefault({})
  .transform((p) => ({
    refreshMs: new Map(Object.entries(p.refresh)),
    maxRefreshMs: p.max_refresh,
    retryReserve: p.retry_reserve,
    maxSeries: p.max_series,
  }))
  .describe('The request plan and the series budget.');

const shardingSchema = z
  .strictObject({
    index: z.int().min(0).optional().describe("This replica's shard, counting from 0."),
    total: z.int().min(1).max(1024).optional().describe('Number of shards (replicas).'),
    max_requests_per_second: z
      .number()
      .positive()
      .optional()
      .describe('Request budget of this replica; default `upstream.max_requests_per_second / total`.'),
  })
  .superRefine((s, ctx) => {
    if (!isRecord(s)) return;
    if ((s.index === undefined) !== (s.total === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'set both index and total, or neither' });
    } else if (typeof s.index === 'number' && typeof s.total === 'number' && s.index >= s.total) {
      ctx.addIssue({ code: 'custom', message: `index must be below total (${s.total})`, path: ['index'] });
    }
  }, always)
  .prefault({})
  .transform((s) => ({
    shard: s.index === undefined || s.total === undefined ? undefined : { index: s.index, total: s.total },
    maxRequestsPerSecond: s.max_requests_per_second,
  }))
  .describe(
    'Sharding across replicas: stations by rendezvous hashing of their id. The `--shard i/n` flag, or ' +
      'STATION_EXPORTER_SHARDS with a StatefulSet pod name, take precedence over `index`/`total`.',
  );

const LISTEN_RE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)?:(\d{1,5})$/;

/** True for `host:port`, `[v6]:port` or `:port`; shared by the config and the command-line flag. */
export function isListenAddress(value: string): boolean {
  return Number(LISTEN_RE.exec(value)?.[1] ?? Number.NaN) <= 65_535;
}

/** Log levels, for the config and the `--log.level` flag. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

const serverSchema = z
  .strictObject({
    listen_address: z
      .string()
      .refine(isListenAddress, {
        error: (iss) => `must be host:port or :port, got "${String(iss.input)}"`,
      })
      .default(':9732')
      .describe('Address of the HTTP server: `host:port` or `:port` for all interfaces.'),
  })
  .prefault({})
  .transform((s) => ({ listenAddress: s.listen_address }))
  .describe('The HTTP server that serves /metrics.');

const logSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('Lowest level that is logged.'),
  })
  .prefault({})
  .describe('Logging.');

/** What group, line and site summaries cover. */
export type SummaryAggregateOver = z.output<typeof summarySchema>['aggregateOver'];
/** Keys by window name (planning.refresh, measurements.statistics.windows) must name a configured window. */
function checkWindowKeys(
  c: {
    windows: readonly { name: string }[];
    planning: { refreshMs: ReadonlyMap<string, number> };
    measurements: { statistics: { windows: ReadonlyMap<string, unknown> } };
  },
  ctx: z.core.$RefinementCtx,
): void {
  const names = new Set(c.windows.map((w) => w.name));
  const check = (keys: Iterable<string>, path: (string | number)[]) => {
    for (const k of keys) {
      if (!names.has(k)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${k}" is not the name of a configured window`,
          path: [...path, k],
        });
      }
    }
  };
  check(c.planning.refreshMs.keys(), ['planning', 'refresh']);
  check(c.measurements.statistics.windows.keys(), ['measurements', 'statistics', 'windows']);
}

/** The configuration file's schema: snake_case YAML in, camelCase {@link Config} data out. */
export const configSchema = z
  .strictObject({
    upstream: upstreamSchema,
    discovery: discoverySchema,
    windows: windowsSchema,
    summary: summarySchema,
    measurements: measurementsSchema,
    units: unitsSchema,
    targets: targetsSchema,
    planning: planningSchema,
    sharding: shardingSchema,
    server: serverSchema,
    log: logSchema,
  })
  .superRefine(checkWindowKeys)
  .describe('station-exporter configuration.');

/** The validated configuration data, before it is branded by the loader. */
export type ConfigData = z.output<typeof configSchema>;

declare const configBrand: unique symbol;

/**
 * A validated configuration. The brand means only the loader (`src/config/load.ts`) can produce one,
 * so the runtime never sees unchecked config.
 */
export type Config = ConfigData & { readonly [configBrand]: true };
