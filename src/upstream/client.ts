/**
 * Typed client of the Station Data Query Service: one function per operation, parameters
 * encoded as the interface describes, responses mapped into domain types at the edge.
 */
import { type Dispatcher, request } from 'undici';
import { createTurns, type Turns } from '../util/turns.ts';
import { type BodyHead, readBody } from './body.ts';
import type { Breakers } from './breaker.ts';
import { DEFAULT_CONNECTION, type DispatcherSource, UpstreamConnection } from './connection.ts';
import { DecodeTurns } from './decode-turns.ts';
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
import { decodeEnvelope, type EnvelopeData, EnvelopeError, MAX_ITEMS_PER_ANSWER } from './envelope.ts';
import { type StatusClass, statusClass, UpstreamError } from './errors.ts';
import { classifyFailure, isStaleConnection, statusError } from './failures.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import {
  isValidId,
  parseMeasurements,
  parseSites,
  parseSummary,
  parseUnits,
  type RecordParseOptions,
} from './parse.ts';
import {
  parseRetryAfter,
  type RetryPolicy,
  type RetryTimers,
  realRetryTimers,
  withRetries,
} from './retry.ts';
import type { MeasurementRecord, RecordList, Site, StationSummary, UnitRecord } from './types.ts';

/** What the client reports about each request, for self-metrics. */
export interface RequestEvent {
  readonly endpoint: Endpoint;
  /** `2xx`, `4xx`, `429`, `5xx`, or the failure reason (`timeout`, `network`, `invalid_body`, `too_large`). */
  readonly statusClass: StatusClass;
  /** The collector whose request it was (`shared` for calls outside any collector). */
  readonly collector: string;
  readonly seconds: number;
  readonly bytes: number;
}

/** Records of one answer skipped at the edge, for one reason. */
export interface SkippedRecords {
  readonly endpoint: Endpoint;
  readonly reason: string;
  readonly count: number;
  readonly collector: string;
}

/** Client construction options. Everything with side effects is injectable. */
export interface ClientOptions {
  readonly baseUrl: string;
  /** Returns the bearer token; called for every request so a rotated token file takes effect. */
  readonly token: () => string | Promise<string>;
  /**
   * Reads the token afresh (ignoring any cache); called once after a 401, whose request is
   * sent again when the token changed.
   */
  readonly renewToken?: () => Promise<string>;
  /** Total deadline of one attempt, body included: a slow-drip answer cannot hold a slot longer. */
  readonly timeoutMs: number;
  /** Largest response body accepted per endpoint, after decompression; default unlimited. */
  readonly maxResponseBytes?: (endpoint: Endpoint) => number;
  /**
   * Most elements of `data` one answer may hold; a larger answer fails as `too_large` before
   * any of it is parsed. Default {@link MAX_ITEMS_PER_ANSWER}.
   */
  readonly maxItemsPerAnswer?: number;
  /** Retries of transient failures; default none. */
  readonly retry?: RetryPolicy;
  readonly retryTimers?: RetryTimers;
  /** Circuit breakers per endpoint; default none. */
  readonly breakers?: Breakers;
  /** Hears each retry, with the failure that caused it. */
  readonly onRetry?: (endpoint: Endpoint, err: UpstreamError, delayMs: number) => void;
  /**
   * undici dispatcher (connection pool), kept open when the client closes; tests inject one.
   * Without it, `connection` is used.
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Where each request takes its dispatcher (TLS, proxy, redirects; see {@link UpstreamConnection}),
   * closed with the client. Default: a direct connection that follows redirects.
   */
  readonly connection?: DispatcherSource;
  /** Shared concurrency and rate gate; defaults to no practical limit. */
  readonly limiter?: Limiter;
  readonly onRequest?: (event: RequestEvent) => void;
  /** Called with every failed request's typed error (the status page keeps the last few). */
  readonly onError?: (error: UpstreamError) => void;
  /** Called with the records skipped at the edge, by reason, after each list response. */
  readonly onSkipped?: (skipped: SkippedRecords) => void;
  /** Monotonic clock in milliseconds, for request durations. */
  readonly monotonic?: () => number;
  /** Event-loop turns shared with the rest of the exporter; default a queue of the client's own. */
  readonly turns?: Turns;
  /** How measurement and unit records are mapped (the zone of times without an offset). */
  readonly records?: RecordParseOptions;
  /**
   * Record answers (`/metrics`, `/units`) held at once, from the request's send until its
   * records are mapped; default 8. Use the upstream concurrency.
   */
  readonly recordAnswersInHand?: number;
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

/** The client the exporter holds: one per upstream, with a view of it per collector. */
export interface SharedClient extends UpstreamClient {
  /**
   * The same client with requests queued in `collector`'s own lane of the limiter (fair
   * share); closing a view does nothing, the shared client owns the connections.
   */
  forCollector(collector: string): UpstreamClient;
}

/** Endpoints whose answers are record lists, often megabytes each. */
const RECORD_ENDPOINTS: ReadonlySet<Endpoint> = new Set<Endpoint>(['metrics', 'units']);

/** The headers {@link readBody} reads: the coding, and the length when it is a plain number. */
function bodyHead(headers: Record<string, string | string[] | undefined>): BodyHead {
  const encoding = headers['content-encoding'];
  const length = headers['content-length'];
  const n = typeof length === 'string' && /^\d{1,12}$/.test(length) ? Number(length) : undefined;
  return { encoding: typeof encoding === 'string' ? encoding : undefined, length: n };
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

/** One GET of {@link createClient}'s internal `get`. */
interface GetRequest<T> {
  /** The limiter lane the request waits in (the collector that asks). */
  readonly collector: string;
  readonly endpoint: Endpoint;
  readonly path: string;
  readonly params?: QueryParams;
  readonly signal?: AbortSignal | undefined;
  /** The endpoint answers with a list: anything but an array is an invalid body, not an empty list. */
  readonly list: boolean;
  /**
   * Maps the answer's `data`: for a list on a record endpoint, its {@link ItemSlices} (read a
   * slice at a time); otherwise the value, a list as one array.
   */
  readonly map: (data: unknown) => T | Promise<T>;
}

/** Creates the client. */
export function createClient(opts: ClientOptions): SharedClient {
  const injected = opts.dispatcher;
  // An injected dispatcher belongs to the caller: closing the client leaves it open.
  const connection: DispatcherSource =
    injected === undefined
      ? (opts.connection ?? new UpstreamConnection(DEFAULT_CONNECTION))
      : { dispatcher: async () => injected, close: async () => {} };
  const limiter =
    opts.limiter ?? createLimiter({ concurrency: 1024, ratePerSecond: Number.POSITIVE_INFINITY });
  const clock = opts.monotonic ?? (() => performance.now());
  const turns = opts.turns ?? createTurns();
  const retryTimers = opts.retryTimers ?? realRetryTimers;
  const retryPolicy = opts.retry ?? { maxAttempts: 1, baseMs: 0, maxDelayMs: 0 };

  // Decoding runs in bounded steps taken in fair turns between collectors: no whole answer is
  // ever parsed at once (only one slice's objects exist at a time), and one collector's huge
  // answer delays another's decoding by at most one step per turn.
  const decodeTurns = new DecodeTurns(turns);
  const maxItems = opts.maxItemsPerAnswer ?? MAX_ITEMS_PER_ANSWER;
  // A record answer's text is several MB. Without this bound the network keeps fetching while
  // answers wait for the decode gate, and a first poll piled up dozens of them (the heap grew
  // past 400 MB for 100 MB of live data). Held from send to mapped, a place makes a parse that
  // falls behind slow the fetching down instead. Lanes per collector keep the fair share, and
  // the item limit keeps the time one answer holds a place bounded.
  const inHand = createLimiter({
    concurrency: opts.recordAnswersInHand ?? 8,
    ratePerSecond: Number.POSITIVE_INFINITY,
  });

  /**
   * Sends a GET and maps its data. `list` endpoints must answer with an array: anything else is
   * an invalid body, not an empty list. Transient failures are retried; every attempt waits
   * for a slot of `collector`'s lane in the limiter and passes the endpoint's breaker.
   */
  async function get<T>(req: GetRequest<T>): Promise<T> {
    const { collector, endpoint, signal, list, map } = req;
    const url = buildUrl(opts.baseUrl, req.path, req.params ?? []);
    const sending: Sending = { collector, endpoint, url, ...(signal ? { signal } : {}) };
    const attempt = () => limiter.run(() => sendRenewing(sending), collector);
    const guarded = opts.breakers ? () => opts.breakers!.run(endpoint, attempt) : attempt;
    const fetchAndMap = async () => {
      const answer = await withRetries(guarded, {
        policy: retryPolicy,
        timers: retryTimers,
        signal,
        onRetry: (err, delayMs) => opts.onRetry?.(endpoint, err, delayMs),
      });
      return decodeAndMap(answer, { collector, endpoint, list, map });
    };
    return RECORD_ENDPOINTS.has(endpoint) ? inHand.run(fetchAndMap, collector) : fetchAndMap();
  }

  interface Answer {
    readonly status: number;
    /** The body as received (decompressed): decoded from the bytes, never held as one string. */
    readonly bytes: Buffer;
    readonly report: (statusClass: StatusClass) => void;
  }

  /** What one GET sends, whatever token it carries. */
  interface Sending {
    readonly collector: string;
    readonly endpoint: Endpoint;
    readonly url: string;
    readonly signal?: AbortSignal;
  }

  /** One attempt; a 401 re-reads the token once and, when it changed, sends again with it. */
  async function sendRenewing(sending: Sending) {
    const token = await opts.token();
    try {
      return await sendFresh(sending, token);
    } catch (err) {
      if (!(err instanceof UpstreamError) || err.status !== 401 || !opts.renewToken) throw err;
      const renewed = await opts.renewToken().catch(() => token);
      if (renewed === token) throw err;
      return sendFresh(sending, renewed);
    }
  }

  async function sendFresh(sending: Sending, token: string): Promise<Answer> {
    try {
      return await send(sending, token);
    } catch (err) {
      // A keep-alive connection the server closed just as it was reused: the GET never
      // reached the service, so sending it once more on a fresh connection is safe.
      if (err instanceof UpstreamError && err.reason === 'network' && isStaleConnection(err.cause)) {
        return send(sending, token);
      }
      throw err;
    }
  }

  /** Sends one GET and reads its body; an error status, a timeout or a network failure throws. */
  async function send(sending: Sending, token: string): Promise<Answer> {
    const { collector, endpoint, url, signal: outer } = sending;
    const started = clock();
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    let status: number | undefined;
    let seconds = 0;
    let bytes = 0;
    const report = (cls: StatusClass) =>
      opts.onRequest?.({ endpoint, collector, statusClass: cls, seconds, bytes });
    try {
      // Taken for each request: a renewed CA or client certificate makes a new dispatcher.
      const dispatcher = await connection.dispatcher();
      const res = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      status = res.statusCode;
      const limit = opts.maxResponseBytes?.(endpoint) ?? Number.POSITIVE_INFINITY;
      const read = await readBody(res.body, bodyHead(res.headers), limit);
      seconds = (clock() - started) / 1000;
      bytes = read.wireBytes;
      if ('tooLarge' in read) {
        throw new UpstreamError(endpoint, 'too_large', {
          message: `${endpoint}: answer larger than max_response_bytes (${limit} bytes); not read further`,
          status,
        });
      }
      const ok = status >= 200 && status < 300;
      if ('corrupt' in read && ok) {
        // The service answered; its body is broken. Not the network: no retry, no breaker failure.
        throw new UpstreamError(endpoint, 'invalid_body', {
          message: `${endpoint}: body does not decompress (${read.corrupt})`,
          status,
        });
      }
      const body = 'corrupt' in read ? Buffer.alloc(0) : read.bytes;
      if (!ok) {
        const e = statusError(endpoint, status, body.toString('utf8'));
        const after = res.headers['retry-after'];
        e.retryAfterMs = parseRetryAfter(typeof after === 'string' ? after : undefined, retryTimers.now());
        throw e;
      }
      return { status, bytes: body, report };
    } catch (err) {
      if (seconds === 0) seconds = (clock() - started) / 1000;
      const e = classifyFailure(endpoint, err, {
        timeout: { fired: timeout.aborted, ms: opts.timeoutMs },
        status,
      });
      report(statusClass(e.status, e.reason));
      opts.onError?.(e);
      throw e;
    }
  }

  /**
   * Decodes an answer's envelope in fair steps and maps its data; reports the request as done,
   * or as an invalid or too large body (counted, never retried: the same answer would come again).
   */
  async function decodeAndMap<T>(
    answer: Answer,
    req: Pick<GetRequest<T>, 'collector' | 'endpoint' | 'list' | 'map'>,
  ): Promise<T> {
    const { collector, endpoint, list, map } = req;
    let result: T;
    try {
      const data = await decodeEnvelope(answer.bytes, decodeTurns.answer(collector), { maxItems });
      if (list && data.kind !== 'list') throw new EnvelopeError('invalid', 'data is not an array');
      result = await map(await dataFor(endpoint, data));
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      const reason = err.kind === 'too_large' ? 'too_large' : 'invalid_body';
      answer.report(reason);
      const e = new UpstreamError(endpoint, reason, { message: `${endpoint}: ${err.message}` });
      opts.onError?.(e);
      throw e;
    }
    answer.report(statusClass(answer.status));
    return result;
  }

  /** Record lists are mapped a slice at a time; other data is handed over whole. */
  async function dataFor(endpoint: Endpoint, data: EnvelopeData): Promise<unknown> {
    if (data.kind === 'value') return data.value;
    return RECORD_ENDPOINTS.has(endpoint) ? data.items : data.items.all();
  }

  function reportSkipped(collector: string, endpoint: Endpoint, list: RecordList<unknown>): void {
    for (const [reason, count] of Object.entries(list.skipped))
      opts.onSkipped?.({ endpoint, reason, count, collector });
  }

  /** The operations, with every request queued in `collector`'s lane. */
  function view(collector: string): UpstreamClient {
    return {
      async listSites(signal) {
        const list = await get({
          collector,
          endpoint: 'sites',
          path: ENDPOINTS.sites.path(),
          signal,
          list: true,
          map: parseSites,
        });
        reportSkipped(collector, 'sites', list);
        return list;
      },
      async getSite(id, signal) {
        checkIds('site', [id]);
        // The interface documents an array, but a single object is a reasonable reading too.
        const list = await get({
          collector,
          endpoint: 'site',
          path: ENDPOINTS.site.path(id),
          signal,
          list: false,
          map: (data) => parseSites(Array.isArray(data) ? data : [data]),
        });
        reportSkipped(collector, 'site', list);
        return list;
      },
      async stationSummary(q) {
        checkIds('station_summary', q.stationIds);
        const { path, params } = ENDPOINTS.station_summary;
        const parsed = await get({
          collector,
          endpoint: 'station_summary',
          path: path(),
          params: params(q),
          signal: q.signal,
          list: false,
          map: parseSummary,
        });
        if (!parsed) {
          throw new UpstreamError('station_summary', 'invalid_body', {
            message: 'station_summary: data is not a summary object',
          });
        }
        if (parsed.missing > 0)
          opts.onSkipped?.({
            endpoint: 'station_summary',
            reason: 'missing_field',
            count: parsed.missing,
            collector,
          });
        return parsed.summary;
      },
      async metrics(q) {
        checkIds('metrics', q.stationIds ?? []);
        const { path, params } = ENDPOINTS.metrics;
        const list = await get({
          collector,
          endpoint: 'metrics',
          path: path(),
          params: params(q),
          signal: q.signal,
          list: true,
          map: (d) => parseMeasurements(d, turns, opts.records),
        });
        reportSkipped(collector, 'metrics', list);
        return list;
      },
      async units(q) {
        checkIds('units', q.stationIds ?? []);
        const { path, params } = ENDPOINTS.units;
        const list = await get({
          collector,
          endpoint: 'units',
          path: path(),
          params: params(q),
          signal: q.signal,
          list: true,
          map: (d) => parseUnits(d, turns, opts.records),
        });
        reportSkipped(collector, 'units', list);
        return list;
      },
      urlLength: (endpoint, query) => requestUrl(opts.baseUrl, endpoint, query).length,
      async close() {},
    };
  }

  const shared = view('shared');
  return {
    ...shared,
    forCollector: view,
    async close() {
      await connection.close();
    },
  };
}
