/**
 * The innermost layer of the client: one GET on the wire and its body read within the limits.
 * An error status, a timeout, a network failure or an unreadable body throws a typed
 * {@link UpstreamError} that says how many bytes of the answer came.
 */
import { request } from 'undici';
import { type BodyHead, readBody } from './body.ts';
import type { DispatcherSource } from './connection.ts';
import type { Endpoint } from './endpoints.ts';
import { UpstreamError } from './errors.ts';
import { classifyFailure, statusError } from './failures.ts';
import type { Answer, Authorized } from './layers.ts';
import { parseRetryAfter } from './retry.ts';

/** What {@link HttpTransport} needs; `now` reads a `Retry-After` date. */
export interface TransportOptions {
  readonly connection: DispatcherSource;
  /** Total deadline of one attempt, body included. */
  readonly timeoutMs: number;
  /** Largest response body accepted per endpoint, after decompression; default unlimited. */
  readonly maxResponseBytes?: (endpoint: Endpoint) => number;
  readonly now: () => number;
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
    const { endpoint, url, signal: outer } = sending;
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    let status: number | undefined;
    let wireBytes = 0;
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
      wireBytes = read.wireBytes;
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
      return { status, bytes: body, wireBytes };
    } catch (err) {
      const e = classifyFailure(endpoint, err, {
        timeout: { fired: timeout.aborted, ms: opts.timeoutMs },
        status,
      });
      if (wireBytes > 0) e.receivedBytes = wireBytes;
      throw e;
    }
  }
}
