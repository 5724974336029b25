/**
 * Typed client of the Station Data Query Service: one function per operation, answers mapped into
 * domain types at the edge. A request passes through the layers (layers.ts) composed in
 * {@link createClient}; its answer is decoded round robin between collectors (decode.ts).
 */
import type { Dispatcher } from 'undici';
import { LoopYielder } from '../util/loop-yield.ts';
import type { Breakers } from './breaker.ts';
import { DEFAULT_CONNECTION, type DispatcherSource, UpstreamConnection } from './connection.ts';
import { AnswerDecoder, type DataReading, RECORD_ENDPOINTS } from './decode.ts';
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
import { MAX_ITEMS_PER_ANSWER } from './envelope.ts';
import { UpstreamError } from './errors.ts';
import {
  breaking,
  type ClientObserver,
  limited,
  observing,
  renewingToken,
  resendingStale,
  retrying,
  type Sending,
  type Step,
  type TokenSource,
} from './layers.ts';
import { Limiter } from './limiter.ts';
import {
  isValidId,
  parseMeasurements,
  parseSites,
  parseSummary,
  parseUnits,
  type RecordParseOptions,
} from './parse.ts';
import { type RetryPolicy, type RetryTimers, realRetryTimers } from './retry.ts';
import { HttpTransport } from './transport.ts';
import type { MeasurementRecord, RecordList, Site, StationSummary, UnitRecord } from './types.ts';

/** Client construction options. Everything with side effects is injectable. */
export interface ClientOptions extends TokenSource {
  readonly baseUrl: string;
  /** Total deadline of one attempt, body included: a slow-drip answer cannot hold a slot longer. */
  readonly timeoutMs: number;
  /** Largest response body accepted per endpoint, after decompression; default unlimited. */
  readonly maxResponseBytes?: (endpoint: Endpoint) => number;
  /** Most elements of `data` in one answer, else `too_large`; default {@link MAX_ITEMS_PER_ANSWER}. */
  readonly maxItemsPerAnswer?: number;
  /** Retries of transient failures; default none. */
  readonly retry?: RetryPolicy;
  readonly retryTimers?: RetryTimers;
  /** Circuit breakers per endpoint; default none. */
  readonly breakers?: Breakers;
  /** undici dispatcher, left open when the client closes; tests inject one instead of `connection`. */
  readonly dispatcher?: Dispatcher;
  /** Where each request takes its dispatcher, closed with the client; default a direct connection. */
  readonly connection?: DispatcherSource;
  /** Shared concurrency and rate gate; defaults to no practical limit. */
  readonly limiter?: Limiter;
  /** Hears each attempt, failure, retry and skipped record (self-metrics, logs, the status page). */
  readonly observer?: ClientObserver;
  /** The exporter's yielder to the event loop, shared with the rest of it; default the client's own. */
  readonly yielder?: LoopYielder;
  /** How measurement and unit records are mapped (the zone of times without an offset). */
  readonly records?: RecordParseOptions;
  /** Record answers held at once, from send until mapped; default {@link RECORD_ANSWERS_IN_HAND}. */
  readonly recordAnswersInHand?: number;
}

/**
 * Record answers held at once, whatever the upstream concurrency: each costs about 4.5 times its
 * body while decoded, and decoding runs on one thread, so with two one is decoded while another
 * arrives and more only pile up bodies (docs/scaling.md, "Mechanisms and what each one buys").
 */
export const RECORD_ANSWERS_IN_HAND = 2;

/** The typed upstream client. */
export interface UpstreamClient {
  listSites(signal?: AbortSignal): Promise<RecordList<Site>>;
  getSite(id: string, signal?: AbortSignal): Promise<RecordList<Site>>;
  stationSummary(query: WindowQuery & { stationIds: readonly string[] }): Promise<StationSummary>;
  metrics(query: MetricsQuery): Promise<RecordList<MeasurementRecord>>;
  units(query: UnitsQuery): Promise<RecordList<UnitRecord>>;
  /** Length of the URL this query would be sent as, to keep requests under a URL-length limit. */
  urlLength<E extends 'station_summary' | 'metrics' | 'units'>(endpoint: E, query: QueryOf<E>): number;
  close(): Promise<void>;
}

/** The client the exporter holds: one per upstream, with a view of it per collector. */
export interface SharedClient extends UpstreamClient {
  /** The client with requests in `collector`'s limiter lane; closing a view does nothing. */
  forCollector(collector: string): UpstreamClient;
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

/** One GET of {@link StationDataClient}: where it goes and how its data is read. */
interface GetRequest<T> extends DataReading<T> {
  readonly path: string;
  readonly params?: QueryParams;
  readonly signal?: AbortSignal | undefined;
}

/** The typed operations over a stack of layers, each request in its collector's lane. */
class StationDataClient {
  readonly #opts: ClientOptions;
  readonly #connection: DispatcherSource;
  /** The stacked layers, retry outermost, the transport innermost. */
  readonly #send: Step;
  readonly #yielder: LoopYielder;
  readonly #decoder: AnswerDecoder;
  /** Record answers held at once. */
  readonly #inHand: Limiter;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    const injected = opts.dispatcher;
    // An injected dispatcher belongs to the caller: closing the client leaves it open.
    this.#connection =
      injected === undefined
        ? (opts.connection ?? new UpstreamConnection(DEFAULT_CONNECTION))
        : { dispatcher: async () => injected, close: async () => {} };
    this.#send = stackLayers(opts, this.#connection);
    this.#yielder = opts.yielder ?? new LoopYielder();
    const maxItems = opts.maxItemsPerAnswer ?? MAX_ITEMS_PER_ANSWER;
    this.#decoder = new AnswerDecoder({ yielder: this.#yielder, maxItems });
    const inHand = opts.recordAnswersInHand ?? RECORD_ANSWERS_IN_HAND;
    this.#inHand = new Limiter({ concurrency: inHand, ratePerSecond: Number.POSITIVE_INFINITY });
  }

  /** The client the exporter holds: operations in the `shared` lane, views per collector, close. */
  shared(): SharedClient {
    return {
      ...this.view('shared'),
      forCollector: (collector) => this.view(collector),
      close: () => this.#connection.close(),
    };
  }

  /**
   * Sends a GET and maps its data. A record answer holds an `inHand` slot from sending to mapping,
   * so that a decoder falling behind slows the fetching instead of piling up answers.
   */
  async get<T>(req: GetRequest<T>): Promise<T> {
    const { collector, endpoint, signal } = req;
    const url = buildUrl(this.#opts.baseUrl, req.path, req.params ?? []);
    const sending: Sending = { collector, endpoint, url, ...(signal ? { signal } : {}) };
    const fetchAndMap = async () => this.#decoder.decode(await this.#send(sending), req);
    return RECORD_ENDPOINTS.has(endpoint) ? this.#inHand.run(fetchAndMap, collector) : fetchAndMap();
  }

  #reportSkipped(collector: string, endpoint: Endpoint, skipped: Readonly<Record<string, number>>): void {
    for (const [reason, count] of Object.entries(skipped))
      this.#opts.observer?.skipped?.({ endpoint, reason, count, collector });
  }

  /** The operations, with every request queued in `collector`'s lane; closing a view does nothing. */
  view(collector: string): UpstreamClient {
    const yielder = this.#yielder;
    const { records, baseUrl } = this.#opts;
    const list = async <T>(
      endpoint: Endpoint,
      ids: readonly string[],
      req: Omit<GetRequest<RecordList<T>>, 'collector' | 'endpoint'>,
    ) => {
      checkIds(endpoint, ids);
      const got = await this.get({ ...req, collector, endpoint });
      this.#reportSkipped(collector, endpoint, got.skipped);
      return got;
    };
    // The interface documents an array for both, but a single site object is a reasonable reading too.
    const sites = (data: unknown) => parseSites(Array.isArray(data) ? data : [data], yielder);
    const { metrics, units } = ENDPOINTS;
    return {
      listSites: (signal) =>
        list('sites', [], { path: ENDPOINTS.sites.path(), signal, list: true, map: sites }),
      getSite: (id, signal) =>
        list('site', [id], { path: ENDPOINTS.site.path(id), signal, list: false, map: sites }),
      stationSummary: (q) => this.#stationSummary(collector, q),
      metrics: (q) =>
        list('metrics', q.stationIds ?? [], {
          path: metrics.path(),
          params: metrics.params(q),
          signal: q.signal,
          list: true,
          map: (d) => parseMeasurements(d, yielder, records),
        }),
      units: (q) =>
        list('units', q.stationIds ?? [], {
          path: units.path(),
          params: units.params(q),
          signal: q.signal,
          list: true,
          map: (d) => parseUnits(d, yielder, records),
        }),
      urlLength: (endpoint, query) => requestUrl(baseUrl, endpoint, query).length,
      close: async () => {},
    };
  }

  async #stationSummary(
    collector: string,
    q: WindowQuery & { stationIds: readonly string[] },
  ): Promise<StationSummary> {
    checkIds('station_summary', q.stationIds);
    const { path, params } = ENDPOINTS.station_summary;
    const parsed = await this.get({
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
    this.#reportSkipped(collector, 'station_summary', parsed.skipped);
    return parsed.summary;
  }
}

/** The layers from the outside in: retry, breaker, limiter lane, token, stale resend, observer, transport. */
function stackLayers(opts: ClientOptions, connection: DispatcherSource): Step {
  const retryTimers = opts.retryTimers ?? realRetryTimers;
  const transport = new HttpTransport({
    connection,
    timeoutMs: opts.timeoutMs,
    maxResponseBytes: opts.maxResponseBytes,
    now: () => retryTimers.now(),
  });
  const limiter = opts.limiter ?? new Limiter({ concurrency: 1024, ratePerSecond: Number.POSITIVE_INFINITY });
  const observed = observing((s) => transport.send(s), opts.observer ?? {});
  let send: Step = renewingToken(resendingStale(observed), opts);
  send = limited(send, limiter);
  if (opts.breakers) send = breaking(send, opts.breakers);
  return retrying(send, {
    policy: opts.retry ?? { maxAttempts: 1, baseMs: 0, maxDelayMs: 0 },
    timers: retryTimers,
    onRetry: opts.observer?.retry,
  });
}

/** Creates the client: its layers are composed in {@link stackLayers}. */
export function createClient(opts: ClientOptions): SharedClient {
  return new StationDataClient(opts).shared();
}
