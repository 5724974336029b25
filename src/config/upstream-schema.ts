/** The `upstream` section of the config: where the service is, how to talk to it, and its limits. */
import { z } from 'zod';
import { isValidTimeZone } from '../time/zones.ts';
import { ENDPOINT_NAMES } from '../upstream/endpoints.ts';
import { always, duration, isRecord, period } from './fields.ts';
import { tokenProblem } from './token-text.ts';

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
