import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../../src/server/web-config/rate-limit.ts';

let now = 0;
afterEach(() => {
  vi.restoreAllMocks();
});

describe('rate limiter', () => {
  it('allows a burst, then one request per interval, and says when the next one comes', () => {
    now = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const limiter = new RateLimiter({ intervalMs: 200, burst: 3 });
    const taken = () => Array.from({ length: 5 }, () => limiter.take().ok).filter(Boolean).length;
    expect(taken()).toBe(3);
    expect(limiter.take()).toEqual({ ok: false, retryAfterMs: 200 });
    now += 150;
    expect(limiter.take()).toEqual({ ok: false, retryAfterMs: 50 });
    now += 50;
    expect(limiter.take().ok).toBe(true);
    expect(limiter.take().ok).toBe(false);
    // A long pause refills to the burst, not beyond.
    now += 60_000;
    expect(taken()).toBe(3);
  });

  it('gives nothing back when the clock steps back', () => {
    now = 10_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const limiter = new RateLimiter({ intervalMs: 1000, burst: 1 });
    expect(limiter.take().ok).toBe(true);
    now = 0;
    expect(limiter.take().ok).toBe(false);
    now = 10_999;
    expect(limiter.take().ok).toBe(false);
    now = 11_000;
    expect(limiter.take().ok).toBe(true);
  });
});
