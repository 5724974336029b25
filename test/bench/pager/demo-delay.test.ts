import { describe, expect, it } from 'vitest';
import { demoDelays } from '../../../bench/pager/demo-delay.ts';

describe("the demo shift's delay model", () => {
  it('needs the CUSUM points the shift alert documents (6.5 for 3 sigma)', () => {
    expect(demoDelays({ sigmas: 3, runs: 20_000, seed: 1 }).meanPoints).toBeCloseTo(6.5, 0);
  });

  it('adds the point phase, three 1-minute waits and group_wait to the points', () => {
    const { minutes } = demoDelays({ sigmas: 5, runs: 2_000, seed: 2 });
    // At least 6 points, however large the shift: each adds at most cap - k = 1.875 to a sum
    // that must pass h = 10. So 5 gaps of 2 min after the first point, plus group_wait.
    expect(minutes[0]).toBeGreaterThan(10.5);
    expect(minutes.every((m, i) => i === 0 || m >= (minutes[i - 1] ?? 0))).toBe(true);
    expect(demoDelays({ sigmas: 3, runs: 2_000, seed: 2 }).minutes[1_000]).toBeGreaterThan(
      minutes[1_000] ?? 0,
    );
  });
});
