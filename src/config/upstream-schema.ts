/** The `upstream` section of the config: where the service is, how to talk to it, and its limits. */
import { z } from 'zod';
import { isValidTimeZone } from '../time/zones.ts';
import type { ConnectionSettings, ProxySettings } from '../upstream/connection.ts';
import { ENDPOINT_NAMES } from '../upstream/endpoints.ts';
import { TLS_VERSION_NAMES } from '../util/tls-versions.ts';
import { always, checkPair, duration, isRecord, period } from './fields.ts';
import { tokenProblem } from './token.ts';

/** Where the bearer token comes from. A file path is absolute once the loader has resolved it. */
export type SecretSource = { kind: 'inline'; value: string } | { kind: 'file'; path: string };

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
    probe_interval: period()
      .prefault('30s')
      .describe('While a circuit is open, one probe request is let through this often.'),
  })
  .prefault({})
  .transform((b) => ({ threshold: b.failure_threshold, probeIntervalMs: b.probe_interval }))
  .describe('Circuit breaker per endpoint: stops the full load on a failing upstream and probes it slowly.');

const tlsVersion = z.enum(TLS_VERSION_NAMES);
const TLS_ORDER = tlsVersion.options;

const filePath = z.string().min(1, 'must not be empty').meta({ 'x-type': 'file path' });

const tlsConfigSchema = z
  .strictObject({
    ca_file: filePath
      .optional()
      .describe(
        "CA certificates (PEM) that sign the upstream's certificate, trusted instead of Node's bundled CAs. Relative paths resolve against the config file's directory; re-read when it changes.",
      ),
    cert_file: filePath
      .optional()
      .describe('Client certificate (PEM) for upstreams that require one (mutual TLS); needs `key_file`.'),
    key_file: filePath
      .optional()
      .describe('Private key (PEM) of `cert_file`. The files are re-read when they change.'),
    server_name: z
      .string()
      .min(1, 'must not be empty')
      .optional()
      .describe("Name the upstream's certificate must carry, sent as SNI; default the host of `base_url`."),
    insecure_skip_verify: z
      .boolean()
      .default(false)
      .describe(
        'Accept any certificate of the upstream, unchecked: for tests only, as a proxy could read the token.',
      ),
    min_version: tlsVersion
      .default('TLS12')
      .describe('Lowest TLS version accepted: TLS10, TLS11, TLS12 or TLS13.'),
    max_version: tlsVersion
      .optional()
      .describe('Highest TLS version offered; default the highest Node supports.'),
  })
  .superRefine((t, ctx) => {
    if (!isRecord(t)) return;
    checkPair(t, ctx, 'cert_file', 'key_file');
    const min = TLS_ORDER.indexOf(t.min_version as (typeof TLS_ORDER)[number]);
    const max = TLS_ORDER.indexOf(t.max_version as (typeof TLS_ORDER)[number]);
    if (min >= 0 && max >= 0 && min > max) {
      ctx.addIssue({ code: 'custom', path: ['min_version'], message: 'must not be above max_version' });
    }
  }, always)
  .prefault({})
  .transform((t): ConnectionSettings['tls'] => ({
    caFile: t.ca_file,
    certFile: t.cert_file,
    keyFile: t.key_file,
    serverName: t.server_name,
    insecureSkipVerify: t.insecure_skip_verify,
    minVersion: t.min_version,
    maxVersion: t.max_version,
  }))
  .describe(
    'TLS towards the upstream, as Prometheus\'s `tls_config`: CA, client certificate, server name, versions. See docs/security.md, "Connecting to the upstream".',
  );

const proxyUrl = z
  .string()
  .transform((text, ctx) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      // The value is not repeated: it may hold the proxy's password.
      ctx.addIssue({
        code: 'custom',
        message: 'must be an http or https URL, e.g. http://proxy.example.com:3128',
      });
      return z.NEVER;
    }
    return url.href;
  })
  .meta({ 'x-type': 'URL' });

// RFC 9110 token characters.
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const proxyConnectHeader = z
  .record(z.string(), z.array(z.string()).min(1, 'must list at least one value'))
  .superRefine((headers, ctx) => {
    for (const [name, values] of Object.entries(headers)) {
      if (!HEADER_NAME_RE.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      } else if (name.toLowerCase() === 'host') {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is set by the exporter to the upstream host',
        });
      }
      // biome-ignore lint/suspicious/noControlCharactersInRegex: line breaks and NUL are what is looked for.
      if (Array.isArray(values) && values.some((v) => /[\r\n\u0000]/.test(v))) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'values must be one line each' });
      }
    }
  })
  .default({});

/** The proxy settings of a validated `upstream` section. */
function proxyOf(u: {
  proxy_url?: string;
  no_proxy?: string;
  proxy_from_environment: boolean;
}): ProxySettings {
  if (u.proxy_url !== undefined) return { kind: 'url', url: u.proxy_url, noProxy: u.no_proxy };
  return u.proxy_from_environment ? { kind: 'environment' } : { kind: 'none' };
}

/** Prometheus's rules between the proxy settings, with its wording. */
function checkProxy(u: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const fromEnv = u.proxy_from_environment === true;
  if (fromEnv && u.proxy_url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['proxy_url'],
      message: 'must not be set with proxy_from_environment: true (use one of them)',
    });
  }
  if (u.no_proxy !== undefined && (fromEnv || u.proxy_url === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['no_proxy'],
      message: fromEnv
        ? 'must not be set with proxy_from_environment: true (NO_PROXY in the environment applies)'
        : 'needs proxy_url',
    });
  }
  const headers = u.proxy_connect_header;
  if (isRecord(headers) && Object.keys(headers).length > 0 && u.proxy_url === undefined && !fromEnv) {
    ctx.addIssue({
      code: 'custom',
      path: ['proxy_connect_header'],
      message: 'needs proxy_url or proxy_from_environment: true',
    });
  }
}

export const upstreamSchema = z
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
    timeout: period()
      .prefault('30s')
      .describe(
        'Total deadline of one upstream request attempt, body included: a slow-drip answer is cut off after it.',
      ),
    retry: retrySchema,
    circuit_breaker: breakerSchema,
    max_response_bytes: z
      .int()
      .min(1024)
      // 8 MiB: four record answers at the cap decoded at once add about 140 MiB of RSS (measured,
      // docs/operations.md), so the default is safe in a 512 MiB pod; a record span whose answer is
      // larger is asked for again in halves.
      .default(8 * 1024 * 1024)
      .describe(
        'Largest answer accepted, in bytes, checked while reading and again after decompression; a larger answer fails as `too_large` (a record span is then asked for again in halves). Memory: see docs/operations.md, "Upstream answer limits".',
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
    tls_config: tlsConfigSchema,
    proxy_url: proxyUrl
      .optional()
      .describe(
        'Forward proxy for every upstream request (HTTPS through CONNECT), e.g. `http://proxy.example.com:3128`; credentials in it are sent as Proxy-Authorization.',
      ),
    no_proxy: z
      .string()
      .optional()
      .describe(
        'Hosts reached without `proxy_url`, comma-separated: names (a name also covers its subdomains), `*.name`, IP addresses, `host:port`, `*`.',
      ),
    proxy_from_environment: z
      .boolean()
      .default(false)
      .describe(
        'Use the proxy of the environment: HTTPS_PROXY for https URLs (HTTP_PROXY when unset), HTTP_PROXY for http, minus the hosts in NO_PROXY.',
      ),
    proxy_connect_header: proxyConnectHeader.describe(
      'Headers sent to the proxy with each CONNECT, each with its list of values, e.g. `Proxy-Authorization: [Basic ...]`.',
    ),
    follow_redirects: z
      .boolean()
      .default(true)
      .describe(
        'Follow redirects (up to 10). A redirect to another origin (scheme, host or port) never carries the bearer token.',
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
    checkProxy(u, ctx);
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
    connection: {
      tls: u.tls_config,
      proxy: proxyOf(u),
      proxyConnectHeader: u.proxy_connect_header,
      followRedirects: u.follow_redirects,
    } satisfies ConnectionSettings as ConnectionSettings,
  }))
  .describe('The Station Data Query Service to read from.');
