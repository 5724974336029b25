/**
 * Retries of transient upstream failures (timeouts, resets, 502/503/504, 429) with exponential
 * backoff and full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"), honouring
 * `Retry-After`. Refusals (400, 401, 403, 404) are never retried: asking again changes nothing.
 */
import { isTransient, type UpstreamError } from './errors.ts';

/**
 * How often and how patiently a request is retried: `maxAttempts` in all (1: no retries), the
 * first backoff ceiling `baseMs` doubling per retry up to `maxDelayMs`; a longer `Retry-After`
 * is not waited for (the request fails).
 */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseMs: number;
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

/** The wait before retry `retry` (0: the first) after `err`; undefined: not retried. */
function retryDelay(err: unknown, retry: number, policy: RetryPolicy, random: () => number) {
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
 * Runs `attempt` until it succeeds, fails for good, or the signal aborts (ending a wait at once).
 * Each attempt goes through the limiter, so retries count against the rate; `onRetry` hears each.
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
      const delay = retryDelay(err, retry, opts.policy, opts.timers.random);
      if (delay === undefined) throw err;
      opts.onRetry?.(err as UpstreamError, delay);
      await wait(delay, opts.timers, opts.signal).catch(() => {
        throw err;
      });
    }
  }
}
