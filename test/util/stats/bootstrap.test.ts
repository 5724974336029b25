import { describe, expect, it } from 'vitest';
import { resampledOrderIndices } from '../../../src/util/stats/bootstrap.ts';
import { SeededRandom } from '../../../src/util/stats/random.ts';

/** P(Bin(n, p) ≥ k), summed exactly in doubles (small n). */
function binomialAtLeast(n: number, p: number, k: number): number {
  let total = 0;
  let coefficient = 1;
  for (let i = 0; i <= n; i++) {
    if (i > 0) coefficient = (coefficient * (n - i + 1)) / i;
    if (i >= k) total += coefficient * p ** i * (1 - p) ** (n - i);
  }
  return total;
}

describe('resampledOrderIndices', () => {
  // The k-th smallest of a resample of n draws from n sorted values is at index ≤ j exactly when
  // at least k draws fall on the j + 1 smallest: P = P(Bin(n, (j + 1)/n) ≥ k). The drawn indices
  // must follow that distribution, jointly for several ranks.
  const n = 50;
  const ranks = [1, 3, 25, 26, 50];
  const draws = 40_000;

  it('draws each rank with the exact distribution of a resample order statistic', () => {
    const random = new SeededRandom(11);
    const out = new Float64Array(ranks.length);
    const counts = ranks.map(() => new Float64Array(n));
    for (let d = 0; d < draws; d++) {
      resampledOrderIndices(random, n, ranks, out);
      for (let r = 0; r < ranks.length; r++) {
        const row = counts[r] as Float64Array;
        const j = out[r] as number;
        row[j] = (row[j] as number) + 1;
      }
    }
    for (const [r, k] of ranks.entries()) {
      let cumulative = 0;
      let worst = 0;
      for (let j = 0; j < n; j++) {
        cumulative += (counts[r] as Float64Array)[j] as number;
        const exact = binomialAtLeast(n, (j + 1) / n, k);
        worst = Math.max(worst, Math.abs(cumulative / draws - exact));
      }
      // Kolmogorov distance of 40,000 draws: 1.36/sqrt(40,000) = 0.0068 at 5 %.
      expect(worst).toBeLessThan(0.0068);
    }
  });

  it('keeps the ranks ordered within a replicate', () => {
    const random = new SeededRandom(3);
    const out = new Float64Array(ranks.length);
    for (let d = 0; d < 1000; d++) {
      resampledOrderIndices(random, n, ranks, out);
      for (let r = 1; r < ranks.length; r++) expect(out[r]).toBeGreaterThanOrEqual(out[r - 1] as number);
    }
  });
});

describe('SeededRandom', () => {
  it('gives Gamma deviates with the mean and variance of their shape', () => {
    const random = new SeededRandom(5);
    for (const shape of [1, 3.5, 700]) {
      let sum = 0;
      let squares = 0;
      const m = 50_000;
      for (let i = 0; i < m; i++) {
        const g = random.gamma(shape);
        sum += g;
        squares += g * g;
      }
      const mean = sum / m;
      // Gamma(shape, 1): mean = variance = shape; the mean's standard error is sqrt(shape/m).
      expect(Math.abs(mean - shape)).toBeLessThan(4 * Math.sqrt(shape / m));
      // The sample variance within 5 % (four of its standard errors at shape 1, the widest).
      expect(Math.abs((squares / m - mean * mean) / shape - 1)).toBeLessThan(0.05);
    }
  });

  it('repeats its sequence for a seed', () => {
    const a = new SeededRandom(9);
    const b = new SeededRandom(9);
    for (let i = 0; i < 5; i++) expect(a.uniform()).toBe(b.uniform());
  });
});
