import { describe, expect, it } from 'vitest';
import { isBelowResolution, NOISE_ULPS, ulp } from '../../src/util/ulp.ts';

describe('ulp', () => {
  it('is the gap to the next larger double', () => {
    // Powers of two and their neighbours, where the exponent changes.
    expect(ulp(1)).toBe(Number.EPSILON);
    expect(ulp(2)).toBe(2 * Number.EPSILON);
    expect(ulp(1.9999999999999998)).toBe(Number.EPSILON);
    expect(ulp(-1)).toBe(Number.EPSILON);
    // 1e9 lies in [2^29, 2^30): the gap is 2^(29-52).
    expect(ulp(1e9)).toBe(2 ** -23);
    expect(1e9 + ulp(1e9)).not.toBe(1e9);
    expect(1e9 + ulp(1e9) / 2).toBe(1e9);
    // 1e12 lies in [2^39, 2^40).
    expect(ulp(1e12)).toBe(2 ** -13);
    expect(ulp(0)).toBe(Number.MIN_VALUE);
    expect(ulp(Number.MAX_VALUE)).toBe(2 ** 971);
    expect(ulp(Number.POSITIVE_INFINITY)).toBeNaN();
  });
});

describe('isBelowResolution', () => {
  it('takes a few ulps of the magnitude as noise, more as a spread', () => {
    expect(isBelowResolution(0, 1e9)).toBe(true);
    expect(isBelowResolution(NOISE_ULPS * 2 ** -23, 1e9)).toBe(true);
    expect(isBelowResolution(0.001, 1e9)).toBe(false);
    expect(isBelowResolution(0.001, 1e12)).toBe(false);
    expect(isBelowResolution(Number.NaN, 1)).toBe(true);
  });
});
