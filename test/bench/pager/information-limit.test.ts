import { describe, expect, it } from 'vitest';
import {
  bernoulliKl,
  detectionBoundHours,
  detectionBoundUnits,
} from '../../../bench/pager/information-limit.ts';

describe('information limit of a Bernoulli shift', () => {
  it('KL(p1 || p0) matches values computed by hand', () => {
    // 0.2 ln(0.2/0.05) + 0.8 ln(0.8/0.95) = 0.277259 - 0.137480
    expect(bernoulliKl(0.2, 0.05)).toBeCloseTo(0.139779, 5);
    // 0.2 ln 2 + 0.8 ln(0.8/0.9) = 0.138629 - 0.094226
    expect(bernoulliKl(0.2, 0.1)).toBeCloseTo(0.044403, 5);
    // 0.1 ln 2 + 0.9 ln(0.9/0.95) = 0.069315 - 0.048661
    expect(bernoulliKl(0.1, 0.05)).toBeCloseTo(0.020654, 5);
    expect(bernoulliKl(0.3, 0.3)).toBe(0);
    expect(bernoulliKl(0, 0.5)).toBeCloseTo(Math.log(2), 12);
  });

  it('gives the issue bounds: 66 units (2.2 h) for yield 0.95 -> 0.80, 207 units (6.9 h) for retries 0.10 -> 0.20', () => {
    expect(detectionBoundUnits({ p0: 0.05, p1: 0.2, a: 1e4 })).toBeCloseTo(65.89, 1);
    expect(detectionBoundHours({ p0: 0.05, p1: 0.2, a: 1e4 }, 30)).toBeCloseTo(2.196, 2);
    expect(detectionBoundUnits({ p0: 0.1, p1: 0.2, a: 1e4 })).toBeCloseTo(207.4, 1);
    expect(detectionBoundHours({ p0: 0.1, p1: 0.2, a: 1e4 }, 30)).toBeCloseTo(6.91, 2);
    // A 5-point drop from 0.95 needs more than 10 hours at 30 units an hour.
    expect(detectionBoundHours({ p0: 0.05, p1: 0.1, a: 1e4 }, 30)).toBeGreaterThan(10);
  });

  it('rejects probabilities outside their range', () => {
    expect(() => bernoulliKl(0.2, 0)).toThrow(RangeError);
    expect(() => bernoulliKl(1.2, 0.1)).toThrow(RangeError);
  });
});
