/**
 * Order statistics of bootstrap resamples without drawing the resamples. A resample of n values
 * drawn with replacement from n sorted values x₍₁₎ ≤ … ≤ x₍ₙ₎ has as its k-th smallest value
 * x₍⌊n·U₍ₖ₎⌋₊₁₎, U₍ₖ₎ the k-th smallest of n uniforms (a uniform below j/n picks one of the j
 * smallest values). The uniform order statistics at ranks k₁ < … < kₘ are drawn jointly from
 * m + 1 Gamma deviates, U₍ₖⱼ₎ = (G₁ + … + Gⱼ)/(G₁ + … + Gₘ₊₁), Gⱼ ~ Gamma(kⱼ − kⱼ₋₁) and
 * Gₘ₊₁ ~ Gamma(n + 1 − kₘ) (the spacings of uniforms are normalised exponentials). So a
 * replicate costs m + 1 deviates whatever n, where sorting a drawn resample costs n·log n.
 */
import type { SeededRandom } from './random.ts';

/**
 * For one replicate, the 0-based indices into the sorted sample of the resample's order
 * statistics at `ranks` (1-based, strictly increasing, at most n), written to `out` (as many
 * entries as ranks; a double array, so that no buffer is allocated per replicate).
 */
export function resampledOrderIndices(
  random: SeededRandom,
  n: number,
  ranks: readonly number[],
  out: Float64Array,
): void {
  let previous = 0;
  let cumulative = 0;
  for (let j = 0; j < ranks.length; j++) {
    const k = ranks[j] as number;
    cumulative += random.gamma(k - previous);
    out[j] = cumulative;
    previous = k;
  }
  const total = cumulative + random.gamma(n + 1 - previous);
  for (let j = 0; j < ranks.length; j++)
    out[j] = Math.min(n - 1, Math.floor((n * (out[j] as number)) / total));
}
