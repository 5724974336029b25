/**
 * Turning what went wrong on the wire into typed `UpstreamError`s.
 */
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
  const e = new UpstreamError(endpoint, 'network', {
    message: `${endpoint}: request failed: ${cause}`,
    status,
  });
  if (status === undefined) Object.defineProperty(e, 'cause', { value: err });
  return e;
}
