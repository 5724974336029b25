import { describe, expect, it } from 'vitest';
import { demoDelays } from '../../../bench/pager/demo-delay.ts';

describe("the demo shift's delay model", () => {
  it('needs the CUSUM points the shift alert documents (4.4 for 3 sigma)', () => {
    expect(demoDelays({ sigmas: 3, runs: 20_000, seed: 1 }).meanPoints).toBeCloseTo(4.4, 0);
  });

  it('adds the point phase, three 1-minute waits and group_wait to the points', () => {
    const { minutes } = demoDelays({ sigmas: 5, runs: 2_000, seed: 2 });
    // At least 2 points (2 min apart, the first at any phase) plus group_wait; at most the
    // points' span, a whole phase and three whole waits more.
    expect(minutes[0]).toBeGreaterThan(0.5);
    expect(minutes.every((m, i) => i === 0 || m >= (minutes[i - 1] ?? 0))).toBe(true);
    expect(demoDelays({ sigmas: 3, runs: 2_000, seed: 2 }).minutes[1_000]).toBeGreaterThan(
      minutes[1_000] ?? 0,
    );
  });
});
