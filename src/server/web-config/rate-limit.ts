/** A token bucket as exporter-toolkit's `rate_limit` has it: one token per interval, `burst` at most. */

/** The outcome of asking for one request. */
type Admission = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** A token bucket on an injected clock. */
export interface RateLimiter {
  /** Takes a token if one is there; otherwise says when the next one comes. */
  take(): Admission;
}

/** Creates a full bucket: `burst` requests at once, then one per `intervalMs`. */
export function createRateLimiter(opts: {
  readonly intervalMs: number;
  readonly burst: number;
  readonly clock: () => number;
}): RateLimiter {
  let tokens = opts.burst;
  let last = opts.clock();
  return {
    take() {
      const now = opts.clock();
      // A clock that steps back must not take tokens away.
      if (now > last) {
        tokens = Math.min(opts.burst, tokens + (now - last) / opts.intervalMs);
        last = now;
      }
      if (tokens >= 1) {
        tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterMs: Math.ceil((1 - tokens) * opts.intervalMs) };
    },
  };
}
