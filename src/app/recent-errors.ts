/**
 * The last upstream errors, for the status page: a ring of the most recent ones and a count per
 * (endpoint, reason, status). Messages come from {@link UpstreamError}, which never holds the token.
 */
import { boundText, MAX_ERROR_MESSAGE, type UpstreamError } from '../upstream/errors.ts';

interface RecentError {
  readonly at: number;
  readonly endpoint: string;
  readonly reason: string;
  readonly status?: number;
  readonly message: string;
}

interface ErrorKind {
  readonly endpoint: string;
  readonly reason: string;
  readonly status?: number;
  readonly count: number;
  readonly last: RecentError;
}

/** A ring of the last `capacity` errors, with counts by kind. */
export class RecentErrors {
  readonly #capacity: number;
  readonly #now: () => number;
  /** Oldest first; `capacity` is small (the status page's 50), so dropping the oldest is cheap. */
  readonly #ring: RecentError[] = [];
  readonly #kinds = new Map<string, { count: number; last: RecentError }>();

  constructor(capacity: number, now: () => number) {
    this.#capacity = capacity;
    this.#now = now;
  }

  record(error: UpstreamError): void {
    const e: RecentError = {
      at: this.#now(),
      endpoint: error.endpoint,
      reason: error.reason,
      ...(error.status === undefined ? {} : { status: error.status }),
      // UpstreamError bounds its message already; this keeps the ring bounded whatever feeds it.
      message: boundText(error.message, MAX_ERROR_MESSAGE),
    };
    if (this.#ring.push(e) > this.#capacity) this.#ring.shift();
    const key = `${e.endpoint}\u0000${e.reason}\u0000${e.status ?? ''}`;
    const k = this.#kinds.get(key);
    this.#kinds.set(key, { count: (k?.count ?? 0) + 1, last: e });
  }

  /** Newest first. */
  recent(): readonly RecentError[] {
    return this.#ring.toReversed();
  }

  /** Kinds by endpoint, then reason, then status. */
  kinds(): readonly ErrorKind[] {
    return [...this.#kinds.values()]
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
  }
}
