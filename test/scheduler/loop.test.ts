import { describe, expect, it } from 'vitest';
import { startLoop } from '../../src/scheduler/loop.ts';
import { manualTimers as manual } from '../helpers/timers.ts';

describe('startLoop', () => {
  it('runs at once, then every interval', async () => {
    const m = manual();
    const runs: number[] = [];
    const loop = startLoop({
      intervalMs: 1000,
      timers: m.timers,
      random: () => 0.5,
      run: async () => void runs.push(m.timers.now()),
    });
    await m.advance(0);
    expect(runs).toEqual([0]);
    await m.advance(999);
    expect(runs).toEqual([0]);
    await m.advance(1);
    expect(runs).toEqual([0, 1000]);
    await loop.stop();
    await m.advance(5000);
    expect(runs).toEqual([0, 1000]);
  });

  it('never overlaps: a slow run delays the next one instead of stacking', async () => {
    const m = manual();
    let active = 0;
    let peak = 0;
    let release: (() => void) | undefined;
    const loop = startLoop({
      intervalMs: 100,
      timers: m.timers,
      random: () => 0.5,
      run: () => {
        active++;
        peak = Math.max(peak, active);
        return new Promise<void>((r) => {
          release = () => {
            active--;
            r();
          };
        });
      },
    });
    await m.advance(0);
    await m.advance(1000);
    expect(active).toBe(1);
    release?.();
    await m.flush();
    await m.advance(0);
    expect(active).toBe(1);
    expect(peak).toBe(1);
    release?.();
    await loop.stop();
  });

  it('keeps going after a failed run', async () => {
    const m = manual();
    let n = 0;
    const loop = startLoop({
      intervalMs: 10,
      timers: m.timers,
      random: () => 0.5,
      run: async () => {
        n++;
        throw new Error('boom');
      },
    });
    await m.advance(0);
    await m.advance(10);
    await m.advance(10);
    expect(n).toBe(3);
    await loop.stop();
  });
});
