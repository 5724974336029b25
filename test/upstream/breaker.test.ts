import { describe, expect, it } from 'vitest';
import { Breakers } from '../../src/upstream/breaker.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';

const refused = (n: number) =>
  new UpstreamError('sites', 'network', {
    message: `sites: request failed: connect ECONNREFUSED 127.0.0.1:${n}`,
  });

describe('circuit breaker messages', () => {
  it('an open circuit names the first failure of the run behind it, not only that it is open', async () => {
    let now = 0;
    const states: string[] = [];
    const breakers = new Breakers({
      threshold: 3,
      probeIntervalMs: 5000,
      now: () => now,
      onChange: (_endpoint, state) => states.push(state),
    });
    for (let i = 1; i <= 3; i++)
      await expect(breakers.run('sites', () => Promise.reject(refused(i)))).rejects.toThrow();
    expect(states.at(-1)).toBe('open');
    const err = await breakers.run('sites', () => Promise.resolve(1)).catch((e: unknown) => e);
    expect((err as UpstreamError).reason).toBe('circuit_open');
    expect((err as Error).message).toBe(
      'sites: circuit open after 3 failures in a row, the first: request failed: connect ECONNREFUSED 127.0.0.1:1; not sent',
    );
    // A success closes it and forgets the cause; the next run names its own first failure.
    now += 5000;
    await breakers.run('sites', () => Promise.resolve(1));
    for (let i = 7; i <= 9; i++)
      await expect(breakers.run('sites', () => Promise.reject(refused(i)))).rejects.toThrow();
    const next = await breakers.run('sites', () => Promise.resolve(1)).catch((e: unknown) => e);
    expect((next as Error).message).toContain('the first: request failed: connect ECONNREFUSED 127.0.0.1:7;');
  });
});
