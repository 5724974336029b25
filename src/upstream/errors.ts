import type { Endpoint } from './endpoints.ts';

/** Why an upstream request failed. `status` is an HTTP error status; the rest mean no usable answer. */
export type UpstreamFailure = 'status' | 'timeout' | 'network' | 'invalid_body';

/**
 * A failed upstream request. The message names the endpoint and reason and, for an
 * error status, the upstream's error code and message. It never contains the token.
 */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';

  constructor(
    readonly endpoint: Endpoint,
    readonly reason: UpstreamFailure,
    message: string,
    readonly status?: number,
    readonly code?: string,
    readonly upstreamMessage?: string,
  ) {
    super(message);
  }
}

/** The `status_class` label of a request outcome. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'invalid_body';

/** Every status class, so that counters can start at 0 for each. */
export const STATUS_CLASSES: readonly StatusClass[] = [
  '2xx',
  '3xx',
  '4xx',
  '5xx',
  'timeout',
  'network',
  'invalid_body',
];

/**
 * The `status_class` label for a request outcome: `2xx`..`5xx`, or the failure reason. A
 * status outside 200-599 (undici never surfaces 1xx) counts as network.
 */
export function statusClass(status: number | undefined, reason?: UpstreamFailure): StatusClass {
  if (reason && reason !== 'status') return reason;
  if (status === undefined || status < 200 || status >= 600) return 'network';
  return `${Math.floor(status / 100)}xx` as StatusClass;
}
