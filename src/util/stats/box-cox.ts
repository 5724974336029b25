/**
 * The Box–Cox power transformation (Box & Cox 1964): y(λ) = (x^λ − 1)/λ, ln x at λ = 0, with λ of
 * maximum profile likelihood ℓ(λ) = −(n/2)·ln σ̂²(λ) + (λ − 1)·Σ ln x, searched over Minitab's
 * range [−5, 5] on a coarse grid, then by golden section. No maintained npm package has it.
 */

const LAMBDA_RANGE = [-5, 5] as const;
const GRID = 41;
const TOLERANCE = 1e-7;

/** y(λ) of a positive x; expm1 keeps λ near 0 exact. */
export function boxCox(x: number, lambda: number): number {
  return lambda === 0 ? Math.log(x) : Math.expm1(lambda * Math.log(x)) / lambda;
}

/**
 * ℓ(λ) up to a constant, from logs of the values divided by their geometric mean: that scaling
 * changes ℓ by a constant only (n·ln g) and keeps x^λ finite for any magnitude of the data.
 */
function profileLogLikelihood(centredLogs: Float64Array, lambda: number): number {
  const n = centredLogs.length;
  // Welford's single pass: one transform per value and no cancellation.
  let mean = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const l = centredLogs[i] as number;
    const y = lambda === 0 ? l : Math.expm1(lambda * l) / lambda;
    const d = y - mean;
    mean += d / (i + 1);
    squares += d * (y - mean);
  }
  // Σ ln(x/g) = 0, so the Jacobian term vanishes on the scaled values.
  return -(n / 2) * Math.log(squares / n);
}

/** The maximum-likelihood λ of positive values (at least three, not all equal); undefined otherwise. */
export function boxCoxLambda(values: ArrayLike<number>): number | undefined {
  const n = values.length;
  if (n < 3) return undefined;
  const logs = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = values[i] as number;
    if (!(x > 0) || !Number.isFinite(x)) return undefined;
    logs[i] = Math.log(x);
    sum += logs[i] as number;
  }
  const logMean = sum / n;
  let spread = false;
  for (let i = 0; i < n; i++) {
    logs[i] = (logs[i] as number) - logMean;
    if (logs[i] !== 0) spread = true;
  }
  if (!spread) return undefined;
  return maximise((l) => profileLogLikelihood(logs, l));
}

/** The maximiser of f over LAMBDA_RANGE: the best grid point, refined by golden section. */
function maximise(f: (lambda: number) => number): number {
  const [lo, hi]: readonly number[] = LAMBDA_RANGE;
  const step = (hi - lo) / (GRID - 1);
  let best = lo;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < GRID; i++) {
    const l = lo + i * step;
    const v = f(l);
    if (v > bestValue) {
      bestValue = v;
      best = l;
    }
  }
  let a = Math.max(lo, best - step);
  let b = Math.min(hi, best + step);
  const r = (Math.sqrt(5) - 1) / 2;
  let c = b - r * (b - a);
  let d = a + r * (b - a);
  let fc = f(c);
  let fd = f(d);
  while (b - a > TOLERANCE) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - r * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + r * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2;
}
