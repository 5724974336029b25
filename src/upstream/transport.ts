/**
 * The innermost layer of the client: one GET on the wire and its body read within the limits.
 * An error status, a timeout, a network failure or an unreadable body throws a typed
 * {@link UpstreamError}; every attempt is reported (status class, seconds, bytes) once.
 */
import { request } from 'undici';
import { type BodyHead, readBody } from './body.ts';
import type { DispatcherSource } from './connection.ts';
import type { Endpoint } from './endpoints.ts';
import { type StatusClass, statusClass, UpstreamError } from './errors.ts';
import { classifyFailure, statusError } from './failures.ts';
import type { Answer, Authorized } from './layers.ts';
import { parseRetryAfter } from './retry.ts';

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

/** What {@link HttpTransport} needs. */
export interface TransportOptions {
  /** Where each request takes its dispatcher; taken per request (a renewed certificate makes a new one). */
  readonly connection: DispatcherSource;
  /** Total deadline of one attempt, body included. */
  readonly timeoutMs: number;
  /** Largest response body accepted per endpoint, after decompression; default unlimited. */
  readonly maxResponseBytes?: (endpoint: Endpoint) => number;
  /** Monotonic clock in milliseconds, for request durations. */
  readonly monotonic: () => number;
  /** Wall clock in milliseconds, for a `Retry-After` given as a date. */
  readonly now: () => number;
  readonly onRequest?: (event: RequestEvent) => void;
  /** Called with every failed request's typed error. */
  readonly onError?: (error: UpstreamError) => void;
}

/** The headers {@link readBody} reads: the coding, and the length when it is a plain number. */
function bodyHead(headers: Record<string, string | string[] | undefined>): BodyHead {
  const encoding = headers['content-encoding'];
  const length = headers['content-length'];
  const n = typeof length === 'string' && /^\d{1,12}$/.test(length) ? Number(length) : undefined;
  return { encoding: typeof encoding === 'string' ? encoding : undefined, length: n };
}

/** Sends GETs with undici and reads their bodies. */
export class HttpTransport {
  readonly #opts: TransportOptions;

  constructor(opts: TransportOptions) {
    this.#opts = opts;
  }

  /** Sends one GET and reads its body; an error status, a timeout or a network failure throws. */
  async send(sending: Authorized): Promise<Answer> {
    const opts = this.#opts;
    const { collector, endpoint, url, signal: outer } = sending;
    const started = opts.monotonic();
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    let status: number | undefined;
    let seconds = 0;
    let bytes = 0;
    const report = (cls: StatusClass) =>
      opts.onRequest?.({ endpoint, collector, statusClass: cls, seconds, bytes });
    try {
      // Taken for each request: a renewed CA or client certificate makes a new dispatcher.
      const dispatcher = await opts.connection.dispatcher();
      const res = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: {
          authorization: `Bearer ${sending.token}`,
          accept: 'application/json',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      status = res.statusCode;
      const limit = opts.maxResponseBytes?.(endpoint) ?? Number.POSITIVE_INFINITY;
      const read = await readBody(res.body, bodyHead(res.headers), limit);
      seconds = (opts.monotonic() - started) / 1000;
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
        e.retryAfterMs = parseRetryAfter(typeof after === 'string' ? after : undefined, opts.now());
        throw e;
      }
      return { status, bytes: body, report };
    } catch (err) {
      if (seconds === 0) seconds = (opts.monotonic() - started) / 1000;
      const e = classifyFailure(endpoint, err, {
        timeout: { fired: timeout.aborted, ms: opts.timeoutMs },
        status,
      });
      report(statusClass(e.status, e.reason));
      opts.onError?.(e);
      throw e;
    }
  }
}
