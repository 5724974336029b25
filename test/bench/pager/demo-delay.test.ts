import { describe, expect, it } from 'vitest';
import { demoDelays } from '../../../bench/pager/demo-delay.ts';

describe("the demo shift's delay model", () => {
  it('needs the points the two CUSUMs take at 3 sigma (3.92 by the Markov chain)', () => {
    // docs/measurements.md: the fast CUSUM alone takes 3.92 points by Brook-Evans
    // (test/spc/fast-cusum.test.ts); the configured one takes a few runs off it.
    const points = demoDelays({ sigmas: 3, runs: 20_000, seed: 1 }).meanPoints;
    expect(points).toBeGreaterThan(3.7);
    expect(points).toBeLessThan(3.95);
  });

  it('adds the point phase, three 1-minute waits and group_wait to the points', () => {
    const { minutes } = demoDelays({ sigmas: 5, runs: 2_000, seed: 2 });
    // At least 3 points, however large the shift: each adds at most cap - k = 2 to the fast
    // sum, which must pass h = 4.25 (the slower one needs 6). So 2 gaps of 2 min after the first
    // point, plus group_wait.
    expect(minutes[0]).toBeGreaterThan(4.5);
    expect(minutes.every((m, i) => i === 0 || m >= (minutes[i - 1] ?? 0))).toBe(true);
    expect(demoDelays({ sigmas: 3, runs: 2_000, seed: 2 }).minutes[1_000]).toBeGreaterThan(
      minutes[1_000] ?? 0,
    );
  });
});
