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

/** What an {@link UpstreamError} says beside its endpoint and reason. */
export interface UpstreamErrorDetails {
  /** The error message: it names the endpoint and never contains the token. */
  readonly message: string;
  /** The HTTP status, when an answer came. */
  readonly status?: number | undefined;
  /** The upstream's error code, from an error envelope. */
  readonly code?: string | undefined;
  /** The upstream's error message, from an error envelope. */
  readonly upstreamMessage?: string | undefined;
}

/**
 * A failed upstream request. The message names the endpoint and reason and, for an
 * error status, the upstream's error code and message. It never contains the token.
 */
export class UpstreamError extends Error {
  // Declared before `name`, and always assigned, so that an error has the own properties, in
  // the order, that logs and JSON show: endpoint, reason, status, code, upstreamMessage, name.
  /** The HTTP status, when an answer came. */
  readonly status?: number;
  /** The upstream's error code, from an error envelope. */
  readonly code?: string;
  /** The upstream's error message, from an error envelope. */
  readonly upstreamMessage?: string;
  override readonly name = 'UpstreamError';
  /** The wait the upstream asked for with `Retry-After`, in milliseconds. */
  retryAfterMs?: number;

  constructor(
    readonly endpoint: Endpoint,
    readonly reason: UpstreamFailure,
    details: UpstreamErrorDetails,
  ) {
    super(details.message);
    this.status = details.status;
    this.code = details.code;
    this.upstreamMessage = details.upstreamMessage;
  }
}

/**
 * The `status_class` label of a request outcome. 429 is a class of its own: being rate
 * limited is the upstream asking for less, not a client mistake like other 4xx.
 */
export type StatusClass =
  | '2xx'
  | '3xx'
  | '4xx'
  | '429'
  | '5xx'
  | 'timeout'
  | 'network'
  | 'invalid_body'
  | 'too_large';

/** Every status class, so that counters can start at 0 for each. */
export const STATUS_CLASSES: readonly StatusClass[] = [
  '2xx',
  '3xx',
  '4xx',
  '429',
  '5xx',
  'timeout',
  'network',
  'invalid_body',
  'too_large',
];

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
