/**
 * Retries of transient upstream failures (timeouts, resets, 502/503/504, 429) with exponential
 * backoff and full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"), honouring
 * `Retry-After`. Refusals (400, 401, 403, 404) are never retried: asking again changes nothing.
 */
import { isTransient, type UpstreamError } from './errors.ts';

/** How often and how patiently a request is retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included; 1 disables retries. */
  readonly maxAttempts: number;
  /** First backoff ceiling; doubles per attempt. */
  readonly baseMs: number;
  /** Longest single wait; a `Retry-After` longer than this is not waited for (the attempt fails). */
  readonly maxDelayMs: number;
}

/** Timer and randomness, injected so tests never sleep. */
export interface RetryTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

export const realRetryTimers: RetryTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  random: Math.random,
};

/**
 * `Retry-After` in milliseconds from its two forms, delta-seconds or an HTTP date
 * (RFC 9110 §10.2.3); undefined when absent or unreadable. A date in the past means 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Full jitter: uniform in [0, min(max, base * 2^retry)). */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * The wait before retry number `retry` (0 = the first retry) after `err`, or undefined when
 * the failure must not be retried or the attempts are used up (`policy`); `random`, uniform in
 * [0, 1), for the jitter.
 */
function retryDelay(
  err: unknown,
  retry: number,
  { policy, random }: { readonly policy: RetryPolicy; readonly random: () => number },
) {
  if (!isTransient(err) || retry + 1 >= policy.maxAttempts) return undefined;
  const asked = err.retryAfterMs;
  if (asked !== undefined) return asked <= policy.maxDelayMs ? asked : undefined;
  return backoffMs(retry, policy, random);
}

/** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
function wait(ms: number, timers: RetryTimers, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timers.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the signal aborts. Each attempt goes
 * through the caller's limiter, so every retry counts against the request rate and budget.
 * `onRetry` hears of each retry (for a counter), never of the first attempt.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  opts: {
    policy: RetryPolicy;
    timers: RetryTimers;
    signal?: AbortSignal;
    onRetry?: (err: UpstreamError, delayMs: number) => void;
  },
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const delay = retryDelay(err, retry, { policy: opts.policy, random: opts.timers.random });
      if (delay === undefined) throw err;
      opts.onRetry?.(err as UpstreamError, delay);
      await wait(delay, opts.timers, opts.signal).catch(() => {
        throw err;
      });
    }
  }
}
