/**
 * Typed client of the Station Data Query Service: one function per operation, parameters
 * encoded as the interface describes, responses mapped into domain types at the edge.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { createTurns, type Turns } from '../util/turns.ts';
import {
  buildUrl,
  ENDPOINTS,
  type Endpoint,
  type MetricsQuery,
  type QueryOf,
  type QueryParams,
  requestUrl,
  type UnitsQuery,
  type WindowQuery,
} from './endpoints.ts';
import { type StatusClass, statusClass, UpstreamError } from './errors.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import {
  isValidId,
  parseMeasurements,
  parseSites,
  parseSummary,
  parseUnits,
  type RecordParseOptions,
} from './parse.ts';
import { envelopeSchema, errorBodySchema } from './schemas.ts';
import type { MeasurementRecord, RecordList, Site, StationSummary, UnitRecord } from './types.ts';

/** What the client reports about each request, for self-metrics. */
export interface RequestEvent {
  readonly endpoint: Endpoint;
  /** `2xx`, `4xx`, `5xx`, or the failure reason (`timeout`, `network`, `invalid_body`). */
  readonly statusClass: StatusClass;
  readonly seconds: number;
  readonly bytes: number;
}

/** Client construction options. Everything with side effects is injectable. */
export interface ClientOptions {
  readonly baseUrl: string;
  /** Returns the bearer token; called for every request so a rotated token file takes effect. */
  readonly token: () => string | Promise<string>;
  readonly timeoutMs: number;
  /** undici dispatcher (connection pool); defaults to a keep-alive Agent. */
  readonly dispatcher?: Dispatcher;
  /** Shared concurrency and rate gate; defaults to no practical limit. */
  readonly limiter?: Limiter;
  readonly onRequest?: (event: RequestEvent) => void;
  /** Called with every failed request's typed error (the status page keeps the last few). */
  readonly onError?: (error: UpstreamError) => void;
  /** Called with the records skipped at the edge, by reason, after each list response. */
  readonly onSkipped?: (endpoint: Endpoint, reason: string, count: number) => void;
  /** Monotonic clock in milliseconds, for request durations. */
  readonly monotonic?: () => number;
  /** Event-loop turns shared with the rest of the exporter; default a queue of the client's own. */
  readonly turns?: Turns;
  /** How measurement and unit records are mapped (the zone of times without an offset). */
  readonly records?: RecordParseOptions;
}

/** The typed upstream client. */
export interface UpstreamClient {
  listSites(signal?: AbortSignal): Promise<RecordList<Site>>;
  getSite(id: string, signal?: AbortSignal): Promise<RecordList<Site>>;
  stationSummary(query: WindowQuery & { stationIds: readonly string[] }): Promise<StationSummary>;
  metrics(query: MetricsQuery): Promise<RecordList<MeasurementRecord>>;
  units(query: UnitsQuery): Promise<RecordList<UnitRecord>>;
  /**
   * Length of the URL the client would send for this query, from the same encoding it sends,
   * so that callers can keep requests under a URL-length limit before sending them.
   */
  urlLength<E extends 'station_summary' | 'metrics' | 'units'>(endpoint: E, query: QueryOf<E>): number;
  close(): Promise<void>;
}

/** Bodies above this many characters are parsed on a turn of the event loop of their own. */
const LARGE_BODY = 256 * 1024;

const STALE_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);

/** True for a connection that was closed under a request before any answer came. */
function isStaleConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && STALE_CONNECTION_CODES.has(code);
}

/** Rejects malformed identifiers before anything is sent: a caller error, not an upstream one. */
function checkIds(endpoint: Endpoint, ids: readonly string[]): void {
  const bad = ids.find((id) => !isValidId(id));
  if (bad !== undefined) {
    throw new RangeError(
      `${endpoint}: invalid identifier ${JSON.stringify(bad)} (want 24 hexadecimal characters)`,
    );
  }
}

/** Creates the client. */
export function createClient(opts: ClientOptions): UpstreamClient {
  const ownDispatcher = opts.dispatcher === undefined;
  const dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const limiter =
    opts.limiter ?? createLimiter({ concurrency: 1024, ratePerSecond: Number.POSITIVE_INFINITY });
  const clock = opts.monotonic ?? (() => performance.now());
  const turns = opts.turns ?? createTurns();

  // One answer at a time is parsed and mapped: requests run concurrently, but a parsed JSON
  // tree is several times the size of its text, and eight of them at once would set the
  // heap's high-water mark (and the RSS the process keeps afterwards).
  const decodeGate = createLimiter({ concurrency: 1, ratePerSecond: Number.POSITIVE_INFINITY });

  /**
   * Sends a GET and maps its data. `list` endpoints must answer with an array: anything else is
   * an invalid body, not an empty list.
   */
  async function get<T>(
    endpoint: Endpoint,
    path: string,
    params: QueryParams,
    signal: AbortSignal | undefined,
    list: boolean,
    map: (data: unknown) => T | Promise<T>,
  ): Promise<T> {
    const url = buildUrl(opts.baseUrl, path, params);
    const answer = await limiter.run(async () => {
      try {
        return await send(endpoint, url, signal);
      } catch (err) {
        // A keep-alive connection the server closed just as it was reused: the GET never
        // reached the service, so sending it once more on a fresh connection is safe.
        if (err instanceof UpstreamError && err.reason === 'network' && isStaleConnection(err.cause)) {
          return send(endpoint, url, signal);
        }
        throw err;
      }
    });
    return decodeGate.run(async () => map(await decode(endpoint, answer, list)));
  }

  interface Answer {
    readonly status: number;
    readonly text: string;
    readonly report: (statusClass: StatusClass) => void;
  }

  /** Sends one GET and reads its body; an error status, a timeout or a network failure throws. */
  async function send(endpoint: Endpoint, url: string, outer?: AbortSignal): Promise<Answer> {
    const started = clock();
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    let status: number | undefined;
    let seconds = 0;
    let bytes = 0;
    const report = (cls: StatusClass) => opts.onRequest?.({ endpoint, statusClass: cls, seconds, bytes });
    try {
      const token = await opts.token();
      const res = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      status = res.statusCode;
      const text = await res.body.text();
      seconds = (clock() - started) / 1000;
      bytes = Buffer.byteLength(text);
      if (status < 200 || status >= 300) throw statusError(endpoint, status, text);
      return { status, text, report };
    } catch (err) {
      if (seconds === 0) seconds = (clock() - started) / 1000;
      const e = classify(endpoint, err, timeout.aborted, status);
      report(statusClass(e.status, e.reason));
      opts.onError?.(e);
      throw e;
    }
  }

  /** Parses an answer's envelope; reports the request as done, or as an invalid body. */
  async function decode(endpoint: Endpoint, answer: Answer, list: boolean): Promise<unknown> {
    // JSON.parse of a large answer cannot be sliced: wait for a turn of its own.
    if (answer.text.length > LARGE_BODY) await turns.yieldToLoop();
    const env = envelopeSchema.safeParse(parseJson(answer.text));
    let problem: string | undefined;
    if (!env.success) problem = 'response is not the documented envelope';
    else if (list && !Array.isArray(env.data.data)) problem = 'data is not an array';
    if (problem !== undefined || !env.success) {
      answer.report('invalid_body');
      const e = new UpstreamError(endpoint, 'invalid_body', `${endpoint}: ${problem}`);
      opts.onError?.(e);
      throw e;
    }
    answer.report(statusClass(answer.status));
    return env.data.data;
  }

  function parseJson(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }

  function statusError(endpoint: Endpoint, status: number, text: string): UpstreamError {
    const body = errorBodySchema.safeParse(parseJson(text));
    const code =
      body.success && body.data.error.code !== undefined ? String(body.data.error.code) : undefined;
    const msg = body.success ? body.data.error.message : undefined;
    const detail = code || msg ? ` (${[code, msg].filter(Boolean).join(': ')})` : '';
    return new UpstreamError(endpoint, 'status', `${endpoint}: HTTP ${status}${detail}`, status, code, msg);
  }

  function classify(endpoint: Endpoint, err: unknown, timedOut: boolean, status?: number): UpstreamError {
    if (err instanceof UpstreamError) return err;
    if (timedOut) {
      return new UpstreamError(
        endpoint,
        'timeout',
        `${endpoint}: no answer within ${opts.timeoutMs} ms`,
        status,
      );
    }
    const cause = err instanceof Error ? err.message : String(err);
    const e = new UpstreamError(endpoint, 'network', `${endpoint}: request failed: ${cause}`, status);
    if (status === undefined) Object.defineProperty(e, 'cause', { value: err });
    return e;
  }

  function reportSkipped(endpoint: Endpoint, list: RecordList<unknown>): void {
    for (const [reason, n] of Object.entries(list.skipped)) opts.onSkipped?.(endpoint, reason, n);
  }

  return {
    async listSites(signal) {
      const list = await get('sites', ENDPOINTS.sites.path(), [], signal, true, parseSites);
      reportSkipped('sites', list);
      return list;
    },
    async getSite(id, signal) {
      checkIds('site', [id]);
      // The interface documents an array, but a single object is a reasonable reading too.
      const list = await get('site', ENDPOINTS.site.path(id), [], signal, false, (data) =>
        parseSites(Array.isArray(data) ? data : [data]),
      );
      reportSkipped('site', list);
      return list;
    },
    async stationSummary(q) {
      checkIds('station_summary', q.stationIds);
      const { path, params } = ENDPOINTS.station_summary;
      const parsed = await get('station_summary', path(), params(q), q.signal, false, parseSummary);
      if (!parsed) {
        throw new UpstreamError(
          'station_summary',
          'invalid_body',
          'station_summary: data is not a summary object',
        );
      }
      if (parsed.missing > 0) opts.onSkipped?.('station_summary', 'missing_field', parsed.missing);
      return parsed.summary;
    },
    async metrics(q) {
      checkIds('metrics', q.stationIds ?? []);
      const { path, params } = ENDPOINTS.metrics;
      const list = await get('metrics', path(), params(q), q.signal, true, (d) =>
        parseMeasurements(d, turns, opts.records),
      );
      reportSkipped('metrics', list);
      return list;
    },
    async units(q) {
      checkIds('units', q.stationIds ?? []);
      const { path, params } = ENDPOINTS.units;
      const list = await get('units', path(), params(q), q.signal, true, (d) =>
        parseUnits(d, turns, opts.records),
      );
      reportSkipped('units', list);
      return list;
    },
    urlLength: (endpoint, query) => requestUrl(opts.baseUrl, endpoint, query).length,
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  };
}
