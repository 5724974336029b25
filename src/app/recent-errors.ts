/**
 * The last upstream errors, for the status page: a fixed-size ring of the most recent ones and
 * a count per (endpoint, reason, status). Fed by the client's `onError`; messages come from
 * {@link UpstreamError}, which never holds the token. Each message is kept to
 * {@link MAX_ERROR_MESSAGE} characters, so the ring holds at most `capacity` times that.
 */
import { boundText, MAX_ERROR_MESSAGE, type UpstreamError } from '../upstream/errors.ts';

/** One remembered error. */
interface RecentError {
  readonly at: number;
  readonly endpoint: string;
  readonly reason: string;
  readonly status?: number;
  readonly message: string;
}

/** Errors of one kind: how many, and the latest. */
interface ErrorKind {
  readonly endpoint: string;
  readonly reason: string;
  readonly status?: number;
  readonly count: number;
  readonly last: RecentError;
}

/** A ring of recent errors with counts by kind. */
export interface RecentErrors {
  record(error: UpstreamError): void;
  /** Newest first. */
  recent(): readonly RecentError[];
  /** Kinds by endpoint, then reason, then status. */
  kinds(): readonly ErrorKind[];
}

/** Keeps the last `capacity` errors; `now` stamps them (wall clock, epoch ms). */
export function createRecentErrors(capacity: number, now: () => number): RecentErrors {
  const ring: RecentError[] = [];
  let next = 0;
  const kinds = new Map<string, { count: number; last: RecentError }>();
  return {
    record(error) {
      const e: RecentError = {
        at: now(),
        endpoint: error.endpoint,
        reason: error.reason,
        ...(error.status === undefined ? {} : { status: error.status }),
        // UpstreamError bounds its message already; this keeps the ring bounded whatever feeds it.
        message: boundText(error.message, MAX_ERROR_MESSAGE),
      };
      if (ring.length < capacity) ring.push(e);
      else ring[next] = e;
      next = (next + 1) % capacity;
      const key = `${e.endpoint}\u0000${e.reason}\u0000${e.status ?? ''}`;
      const k = kinds.get(key);
      kinds.set(key, { count: (k?.count ?? 0) + 1, last: e });
    },
    recent() {
      const ordered = ring.length < capacity ? ring.slice() : [...ring.slice(next), ...ring.slice(0, next)];
      return ordered.reverse();
    },
    kinds() {
      return [...kinds.values()]
        .map(({ count, last }) => ({
          endpoint: last.endpoint,
          reason: last.reason,
          ...(last.status === undefined ? {} : { status: last.status }),
          count,
          last,
        }))
        .sort(
          (a, b) =>
            a.endpoint.localeCompare(b.endpoint) ||
            a.reason.localeCompare(b.reason) ||
            (a.status ?? 0) - (b.status ?? 0),
        );
    },
  };
}
