/** Turning what went wrong on the wire into typed `UpstreamError`s. */
import { parseJson } from './body.ts';
import type { Endpoint } from './endpoints.ts';
import { boundText, MAX_UPSTREAM_TEXT, UpstreamError } from './errors.ts';
import { errorBodySchema } from './schemas.ts';

const STALE_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);

/** True for a connection that was closed under a request before any answer came. */
export function isStaleConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && STALE_CONNECTION_CODES.has(code);
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
