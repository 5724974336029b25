import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/upstream/limiter.ts';
import { manualTimers } from '../helpers/timers.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('limiter', () => {
  it('never runs more than `concurrency` tasks at once', async () => {
    const limiter = new Limiter({ concurrency: 2, ratePerSecond: Number.POSITIVE_INFINITY });
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const runs = gates.map((g) =>
      limiter.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await g.promise;
        running--;
      }),
    );
    await new Promise((r) => setImmediate(r));
    // Two run, the third waits for a slot.
    expect(running).toBe(2);
    for (const g of gates) g.resolve();
    await Promise.all(runs);
    expect(peak).toBe(2);
  });

  it('spaces request starts to respect the rate ceiling', async () => {
    const { timers, advance } = manualTimers();
    const limiter = new Limiter({ concurrency: 10, ratePerSecond: 2, timers });
    const started: number[] = [];
    const runs = [0, 1, 2].map(() => limiter.run(async () => void started.push(timers.now())));
    await advance(0);
    expect(started).toEqual([0]);
    await advance(499);
    expect(started).toEqual([0]);
    await advance(1);
    expect(started).toEqual([0, 500]);
    await advance(500);
    await Promise.all(runs);
    expect(started).toEqual([0, 500, 1000]);
  });

  it('passes errors through and frees the slot', async () => {
    const limiter = new Limiter({ concurrency: 1, ratePerSecond: Number.POSITIVE_INFINITY });
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 7)).resolves.toBe(7);
  });
});
