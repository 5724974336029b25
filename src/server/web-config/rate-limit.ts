/** A token bucket as exporter-toolkit's `rate_limit` has it: one token per interval, `burst` at most. */

/** The outcome of asking for one request. */
type Admission = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** A token bucket on the wall clock. */
export class RateLimiter {
  readonly #intervalMs: number;
  readonly #burst: number;
  #tokens: number;
  #last = Date.now();

  /** A full bucket: `burst` requests at once, then one per `intervalMs`. */
  constructor(opts: { readonly intervalMs: number; readonly burst: number }) {
    this.#intervalMs = opts.intervalMs;
    this.#burst = opts.burst;
    this.#tokens = opts.burst;
  }

  /** Takes a token if one is there; otherwise says when the next one comes. */
  take(): Admission {
    const now = Date.now();
    // A clock that steps back must not take tokens away.
    if (now > this.#last) {
      this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#last) / this.#intervalMs);
      this.#last = now;
    }
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil((1 - this.#tokens) * this.#intervalMs) };
  }
}
