/**
 * Whether a spread is real or only rounding left on equal values, decided from the data's own
 * magnitude, so that a small spread at a large offset (a 1 GHz clock in Hz) is kept.
 */

const view = new DataView(new ArrayBuffer(8));

/**
 * The unit in the last place of `x`: the gap between `|x|` and the next larger double.
 * `Number.MIN_VALUE` for zero and subnormals, NaN for non-finite input.
 */
export function ulp(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  view.setFloat64(0, Math.abs(x));
  const exponent = (view.getUint32(0) >>> 20) & 0x7ff;
  // Subnormals and zero are spaced by the smallest subnormal; normals by 2^(e - 1023 - 52).
  return exponent === 0 ? Number.MIN_VALUE : 2 ** (exponent - 1075);
}

/**
 * Ulps of the data's magnitude a spread may be and still count as rounding noise: the mean,
 * deviations and moving ranges of equal values each carry at most a few ulps of error.
 */
export const NOISE_ULPS = 4;

/** True when `spread` is at most {@link NOISE_ULPS} ulps of `magnitude`, or not positive. */
export function isBelowResolution(spread: number, magnitude: number): boolean {
  return !(spread > NOISE_ULPS * ulp(magnitude));
}
