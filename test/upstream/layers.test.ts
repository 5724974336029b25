/** Each layer of the client alone, over a fake next step: no socket, no timers of its own. */
import { describe, expect, it } from 'vitest';
import { Breakers } from '../../src/upstream/breaker.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';
import {
  type Answer,
  type Authorized,
  breaking,
  limited,
  renewingToken,
  resendingStale,
  retrying,
  type Sending,
} from '../../src/upstream/layers.ts';
import { Limiter } from '../../src/upstream/limiter.ts';
import type { RetryTimers } from '../../src/upstream/retry.ts';

const sending: Sending = { collector: 'units', endpoint: 'units', url: 'http://fake/units' };
const answer: Answer = { status: 200, bytes: Buffer.alloc(0), wireBytes: 0 };

const failure = (status: number) =>
  new UpstreamError('units', 'status', { message: `units: ${status}`, status });

/** Timers that fire at once and remember each wait. */
function instantTimers(): RetryTimers & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => 0,
    setTimeout: (fn, ms) => {
      waits.push(ms);
      queueMicrotask(fn);
      return 0;
    },
    clearTimeout: () => {},
    random: () => 0.5,
  };
}

describe('retrying', () => {
  it('waits as long as Retry-After asks, then sends again', async () => {
    const timers = instantTimers();
    const heard: number[] = [];
    let calls = 0;
    const send = retrying(
      async () => {
        calls++;
        if (calls === 1) {
          const e = failure(503);
          e.retryAfterMs = 2000;
          throw e;
        }
        return answer;
      },
      {
        policy: { maxAttempts: 3, baseMs: 100, maxDelayMs: 5000 },
        timers,
        onRetry: (_endpoint, _err, ms) => heard.push(ms),
      },
    );
    await expect(send(sending)).resolves.toBe(answer);
    expect(calls).toBe(2);
    expect(timers.waits).toEqual([2000]);
    expect(heard).toEqual([2000]);
  });

  it('never retries a refusal', async () => {
    let calls = 0;
    const send = retrying(
      async () => {
        calls++;
        throw failure(403);
      },
      { policy: { maxAttempts: 3, baseMs: 100, maxDelayMs: 5000 }, timers: instantTimers() },
    );
    await expect(send(sending)).rejects.toThrow('units: 403');
    expect(calls).toBe(1);
  });
});

describe('breaking', () => {
  it('stops sending to an endpoint after its threshold of failures', async () => {
    const breakers = new Breakers({ threshold: 2, probeIntervalMs: 60_000, now: () => 0 });
    let calls = 0;
    const send = breaking(async () => {
      calls++;
      throw failure(503);
    }, breakers);
    await expect(send(sending)).rejects.toThrow('503');
    await expect(send(sending)).rejects.toThrow('503');
    await expect(send(sending)).rejects.toMatchObject({ reason: 'circuit_open' });
    expect(calls).toBe(2);
  });
});

describe('limited', () => {
  it("queues each request in its collector's lane", async () => {
    const limiter = new Limiter({ concurrency: 4, ratePerSecond: Number.POSITIVE_INFINITY });
    const lanes: string[] = [];
    const run = limiter.run.bind(limiter);
    limiter.run = (task, key) => {
      lanes.push(key ?? 'shared');
      return run(task, key);
    };
    await limited(async () => answer, limiter)(sending);
    expect(lanes).toEqual([sending.collector]);
  });
});

describe('renewingToken', () => {
  it('sends again once with a renewed token after a 401', async () => {
    const tokens: string[] = [];
    const send = renewingToken(
      async (s: Authorized) => {
        tokens.push(s.token);
        if (s.token === 'old') throw failure(401);
        return answer;
      },
      { token: () => 'old', renewToken: async () => 'new' },
    );
    await expect(send(sending)).resolves.toBe(answer);
    expect(tokens).toEqual(['old', 'new']);
  });

  it('gives up when the renewed token is the same', async () => {
    let calls = 0;
    const send = renewingToken(
      async () => {
        calls++;
        throw failure(401);
      },
      { token: () => 'same', renewToken: async () => 'same' },
    );
    await expect(send(sending)).rejects.toThrow('401');
    expect(calls).toBe(1);
  });
});

describe('resendingStale', () => {
  const authorized: Authorized = { ...sending, token: 't' };

  it('sends once more when a reused connection was closed under the request', async () => {
    let calls = 0;
    const send = resendingStale(async () => {
      calls++;
      if (calls === 1) {
        throw Object.assign(new UpstreamError('units', 'network', { message: 'units: socket' }), {
          cause: { code: 'UND_ERR_SOCKET' },
        });
      }
      return answer;
    });
    await expect(send(authorized)).resolves.toBe(answer);
    expect(calls).toBe(2);
  });

  it('does not resend other network failures', async () => {
    let calls = 0;
    const send = resendingStale(async () => {
      calls++;
      throw Object.assign(new UpstreamError('units', 'network', { message: 'units: refused' }), {
        cause: { code: 'ECONNREFUSED' },
      });
    });
    await expect(send(authorized)).rejects.toThrow('refused');
    expect(calls).toBe(1);
  });
});
