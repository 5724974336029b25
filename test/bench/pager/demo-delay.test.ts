import { describe, expect, it } from 'vitest';
import { demoDelays } from '../../../bench/pager/demo-delay.ts';

describe("the demo shift's delay model", () => {
  it('needs the points the two CUSUMs take at 3 sigma (4.6 by the Markov chain, 4.76 simulated)', () => {
    // docs/measurements.md: the fast CUSUM alone takes 4.61 points by Brook-Evans (which counts a
    // sum of exactly h as a signal) and 4.76 by simulation; the configured one adds little there.
    expect(demoDelays({ sigmas: 3, runs: 20_000, seed: 1 }).meanPoints).toBeCloseTo(4.7, 0);
  });

  it('adds the point phase, three 1-minute waits and group_wait to the points', () => {
    const { minutes } = demoDelays({ sigmas: 5, runs: 2_000, seed: 2 });
    // At least 4 points, however large the shift: each adds at most cap - k = 1.5 to the fast
    // sum, which must pass h = 4.5 (the slower one needs 6). So 3 gaps of 2 min after the first
    // point, plus group_wait.
    expect(minutes[0]).toBeGreaterThan(6.5);
    expect(minutes.every((m, i) => i === 0 || m >= (minutes[i - 1] ?? 0))).toBe(true);
    expect(demoDelays({ sigmas: 3, runs: 2_000, seed: 2 }).minutes[1_000]).toBeGreaterThan(
      minutes[1_000] ?? 0,
    );
  });
});
