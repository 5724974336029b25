/**
 * The standard normal distribution function Φ and its logarithm, a few ulps relative in both tails
 * (Anderson–Darling takes logs of Φ at the extremes); no dependency of the project has it.
 */

/** ln(sqrt(2π)). */
const LN_SQRT_2PI = 0.9189385332046728;

/** Beyond this |x| the series loses relative accuracy (cancelling against 1/2): the fraction takes over. */
const TAIL = 2.5;

/** Terms of the continued fraction: from x = 2.5 on, 200 give full double precision. */
const FRACTION_TERMS = 200;

/**
 * ln Q(x) = ln(1 − Φ(x)) for x > {@link TAIL}, from Laplace's continued fraction of Mills' ratio,
 * Q(x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + …)))), evaluated from its tail upwards.
 */
function logUpperTail(x: number): number {
  let f = x;
  for (let k = FRACTION_TERMS; k >= 1; k--) f = x + k / f;
  return -0.5 * x * x - LN_SQRT_2PI - Math.log(f);
}

/**
 * Φ(x) for |x| ≤ {@link TAIL}: Marsaglia's Taylor series (J. Stat. Software 11(4), 2004),
 * Φ(x) = 1/2 + φ(x)·(x + x³/3 + x⁵/(3·5) + …), absolute error about 1e-16.
 */
function centralCdf(x: number): number {
  const q = x * x;
  let sum = x;
  let term = x;
  let previous = 0;
  for (let i = 1; sum !== previous; ) {
    previous = sum;
    i += 2;
    term *= q / i;
    sum = previous + term;
  }
  return 0.5 + sum * Math.exp(-0.5 * q - LN_SQRT_2PI);
}

/** Φ(x), the standard normal distribution function. */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < -TAIL) return Math.exp(logUpperTail(-x));
  if (x > TAIL) return 1 - Math.exp(logUpperTail(x));
  return centralCdf(x);
}

/** ln Φ(x), finite far into the lower tail (ln Φ(−40) ≈ −804.6, where Φ itself underflows). */
export function logNormalCdf(x: number): number {
  if (x < -TAIL) return logUpperTail(-x);
  // ln(1 − Q) by log1p: ln Φ(8) is −6.2e-16, where ln of the rounded Φ gives −6.7e-16.
  if (x > TAIL) return Math.log1p(-Math.exp(logUpperTail(x)));
  return Math.log(normalCdf(x));
}
