import type { Endpoint } from './endpoints.ts';

/**
 * Why an upstream request failed. `status` is an HTTP error status; `too_large` an answer over
 * the size ceiling; `circuit_open` a request the breaker did not send; the rest mean no usable answer.
 */
export type UpstreamFailure =
  | 'status'
  | 'timeout'
  | 'network'
  | 'invalid_body'
  | 'too_large'
  | 'circuit_open';

/**
 * Longest upstream-supplied text (an error envelope's message or code) kept, in characters: a 500
 * can carry megabytes, and the status page keeps the last errors whole.
 */
export const MAX_UPSTREAM_TEXT = 512;

/** Longest error message kept, in characters: the words around the upstream's text, and the text. */
export const MAX_ERROR_MESSAGE = 2 * MAX_UPSTREAM_TEXT;

/**
 * `text` cut to at most `max` characters (about 40 or more), ending with a marker saying how much
 * was cut; idempotent. The kept part is a fresh copy: a V8 slice can keep the original alive.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `... [${cut} characters cut]`;
  // The marker for the whole length is at least as long as the one finally written.
  let end = Math.max(0, max - marker(text.length).length);
  // Never split a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  const kept = Buffer.from(text.slice(0, end), 'utf8').toString('utf8');
  return `${kept}${marker(text.length - end)}`;
}

/**
 * What an {@link UpstreamError} says beside its endpoint and reason: the message (naming the
 * endpoint, never the token), the HTTP status when an answer came, and an error envelope's code
 * and message.
 */
export interface UpstreamErrorDetails {
  readonly message: string;
  readonly status?: number | undefined;
  readonly code?: string | undefined;
  readonly upstreamMessage?: string | undefined;
}

/**
 * A failed upstream request. The message names the endpoint and reason and, for an error status,
 * the upstream's code and message, never the token; every text is bounded whatever was sent.
 */
export class UpstreamError extends Error {
  // Declared before `name`, and always assigned, so that an error has the own properties, in
  // the order, that logs and JSON show: endpoint, reason, status, code, upstreamMessage, name.
  readonly status?: number;
  readonly code?: string;
  readonly upstreamMessage?: string;
  override readonly name = 'UpstreamError';
  /** The wait the upstream asked for with `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
  /** Bytes of the answer received on the wire before it failed, when one came. */
  receivedBytes?: number;

  constructor(
    readonly endpoint: Endpoint,
    readonly reason: UpstreamFailure,
    details: UpstreamErrorDetails,
  ) {
    super(boundText(details.message, MAX_ERROR_MESSAGE));
    this.status = details.status;
    this.code = details.code === undefined ? undefined : boundText(details.code, MAX_UPSTREAM_TEXT);
    this.upstreamMessage =
      details.upstreamMessage === undefined
        ? undefined
        : boundText(details.upstreamMessage, MAX_UPSTREAM_TEXT);
  }
}

/**
 * Every `status_class` label value, so that counters can start at 0 for each. 429 is a class of
 * its own: being rate limited is the upstream asking for less, not a client mistake.
 */
export const STATUS_CLASSES = [
  ...['2xx', '3xx', '4xx', '429', '5xx'],
  ...['timeout', 'network', 'invalid_body', 'too_large'],
] as const;

/** The `status_class` label of a request outcome. */
export type StatusClass = (typeof STATUS_CLASSES)[number];

/**
 * The `status_class` label for a request outcome: `2xx`..`5xx`, `429`, or the failure reason. A
 * status outside 200-599 (undici never surfaces 1xx) counts as network.
 */
export function statusClass(status: number | undefined, reason?: UpstreamFailure): StatusClass {
  if (reason === 'circuit_open') return 'network';
  if (reason && reason !== 'status') return reason;
  if (status === undefined || status < 200 || status >= 600) return 'network';
  if (status === 429) return '429';
  return `${Math.floor(status / 100)}xx` as StatusClass;
}

/** Failures worth sending again: the upstream was busy, slow or unreachable, not refusing. */
export function isTransient(err: unknown): err is UpstreamError {
  if (!(err instanceof UpstreamError)) return false;
  if (err.reason === 'timeout' || err.reason === 'network') return true;
  return err.reason === 'status' && [429, 502, 503, 504].includes(err.status ?? 0);
}
