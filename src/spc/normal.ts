/** The standard normal distribution, for run-length arithmetic. */

/**
 * Standard normal CDF Φ(x), by the complementary error function of W. J. Cody's rational
 * Chebyshev approximation as given in Numerical Recipes (erfc with fractional error below
 * 1.2e-7 everywhere): enough for average run lengths to a fraction of a percent.
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * Expected steps to absorption of a Markov chain from each transient state: solves
 * (I - Q) arl = 1 by Gaussian elimination with partial pivoting. `q[i][j]` is the probability
 * of going from transient state i to transient state j.
 */
export function expectedSteps(q: readonly (readonly number[])[]): number[] {
  const n = q.length;
  const a = q.map((row, i) => [...row.map((v, j) => (i === j ? 1 : 0) - v), 1]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]!;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const row = a[r]!;
      const f = row[col]! / p[col]!;
      if (f === 0) continue;
      for (let c = col; c <= n; c++) row[c] = row[c]! - f * p[c]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}
