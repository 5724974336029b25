/**
 * The innermost layer of the client: one GET on the wire and its body read within the limits.
 * An error status, a timeout, a network failure or an unreadable body throws a typed
 * {@link UpstreamError} that says how many bytes of the answer came.
 */
import { request } from 'undici';
import { type BodyHead, parseJson, readBody } from './body.ts';
import type { DispatcherSource } from './connection.ts';
import type { Endpoint } from './endpoints.ts';
import { boundText, MAX_UPSTREAM_TEXT, UpstreamError } from './errors.ts';
import type { Answer, Authorized } from './layers.ts';
import { parseRetryAfter } from './retry.ts';
import { errorBodySchema } from './schemas.ts';

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

/**
 * The error for an HTTP error status, with the upstream's error code and message when the
 * body is the documented error shape (any other body is ignored, never echoed).
 */
export function statusError(endpoint: Endpoint, status: number, text: string): UpstreamError {
  const body = errorBodySchema.safeParse(parseJson(text));
  const rawCode = body.success ? body.data.error.code : undefined;
  // Cut here, before the message is composed, so that a huge code cannot crowd out the message.
  const code = rawCode === undefined ? undefined : boundText(String(rawCode), MAX_UPSTREAM_TEXT);
  const rawMsg = body.success ? body.data.error.message : undefined;
  const msg = rawMsg === undefined ? undefined : boundText(rawMsg, MAX_UPSTREAM_TEXT);
  const detail = code || msg ? ` (${[code, msg].filter(Boolean).join(': ')})` : '';
  return new UpstreamError(endpoint, 'status', {
    message: `${endpoint}: ${statusWords(status)}${detail}`,
    status,
    code,
    upstreamMessage: msg,
  });
}

/**
 * An error status in words for the statuses a user must act on: a 401 is the token, not the
 * upstream, and says so wherever the message goes (log, status page, readiness, `once`).
 */
function statusWords(status: number): string {
  if (status >= 300 && status < 400) {
    return `HTTP ${status}: a redirect not followed (upstream.follow_redirects is false, or more than 10 in a row)`;
  }
  if (status === 401)
    return 'authentication failed (HTTP 401): the upstream refuses the token; check upstream.token or upstream.token_file';
  if (status === 403) return 'access denied (HTTP 403): the token may not read this';
  return `HTTP ${status}`;
}

/** What the sender saw of a failed request, for {@link classifyFailure}. */
export interface FailureSeen {
  /** The request's deadline: whether it fired, and its length. */
  readonly timeout: { readonly fired: boolean; readonly ms: number };
  /** The HTTP status, when an answer came before the failure. */
  readonly status?: number | undefined;
}

/**
 * Types a thrown failure: an `UpstreamError` as is, a fired deadline as `timeout`, anything
 * else as `network` (keeping the cause when no status came, so a stale connection can be told).
 */
export function classifyFailure(endpoint: Endpoint, err: unknown, seen: FailureSeen): UpstreamError {
  const { timeout, status } = seen;
  if (err instanceof UpstreamError) return err;
  if (timeout.fired) {
    return new UpstreamError(endpoint, 'timeout', {
      message: `${endpoint}: no complete answer within ${timeout.ms} ms`,
      status,
    });
  }
  const cause = err instanceof Error ? err.message : String(err);
  const hint = connectionHint(err);
  const e = new UpstreamError(endpoint, 'network', {
    message: `${endpoint}: request failed: ${cause}${hint === undefined ? '' : ` (${hint})`}`,
    status,
  });
  if (status === undefined) Object.defineProperty(e, 'cause', { value: err });
  return e;
}

const UNTRUSTED =
  "the upstream's certificate is not signed by a CA the exporter trusts: set upstream.tls_config.ca_file to the CA that signed it";

/** What to do about a TLS or proxy failure, by the code Node or undici gives it. */
const CONNECTION_HINTS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "the upstream's certificate is past its end date: the server needs a renewed one",
  CERT_NOT_YET_VALID: "the upstream's certificate is not valid yet: check the clocks of both machines",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED,
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED,
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the upstream's certificate is self-signed: set upstream.tls_config.ca_file to that certificate",
  ERR_TLS_CERT_ALTNAME_INVALID:
    "the upstream's certificate is not for this host name: use a name it carries in base_url, or set upstream.tls_config.server_name",
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    'the upstream requires a client certificate: set upstream.tls_config.cert_file and key_file',
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE:
    'the upstream refused the client certificate (upstream.tls_config.cert_file)',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA:
    'the upstream does not trust the CA of the client certificate (upstream.tls_config.cert_file)',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION:
    'no TLS version both sides accept: check upstream.tls_config.min_version and max_version',
  ERR_SSL_UNSUPPORTED_PROTOCOL:
    'no TLS version both sides accept: check upstream.tls_config.min_version and max_version',
  ERR_SSL_WRONG_VERSION_NUMBER:
    'the server did not answer in TLS: is base_url https:// on a plain-HTTP port?',
};

/**
 * What the operator can do about a failure to connect, when its code says: a certificate the
 * exporter does not trust, one the upstream does not accept, a proxy refusing the tunnel. The
 * code may sit on a cause (undici wraps some proxy failures).
 */
export function connectionHint(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_HINTS[code] !== undefined) return CONNECTION_HINTS[code];
    // TLS 1.3 sends the client certificate after the handshake, so a server refusing a client
    // without one just closes: undici sees the end of the stream, not the TLS alert.
    if (code === 'UND_ERR_SOCKET' && e.message === 'other side closed') {
      return 'the upstream closed the connection without answering; one that requires a client certificate does so when none is sent: set upstream.tls_config.cert_file and key_file';
    }
    if (/^Proxy response \(\d+\)/.test(e.message)) {
      return 'the proxy refused the tunnel: check upstream.proxy_url or the proxy environment, and proxy_connect_header';
    }
    if (e.message.includes('Proxy Authentication Required')) {
      return 'the proxy wants credentials: put them in upstream.proxy_url or proxy_connect_header';
    }
  }
  return undefined;
}
