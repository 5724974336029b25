/**
 * The information limit of detecting a shift in a Bernoulli stream. A unit's pass/fail (or
 * retest/no retest) is a Bernoulli trial; when its probability moves from p0 to p1, a procedure
 * with one chance alarm in A trials on average needs about ln(A) / KL(p1 || p0) trials to detect
 * the change as A grows (Lorden 1971: the first-order term of the least worst-case delay, an
 * asymptotic figure, not a floor at finite A; Wald's SPRT approximation gives the same term).
 */

import { ArlChain, type BernoulliDesign } from '../../src/spc/bernoulli.ts';

/** Kullback-Leibler divergence KL(p1 || p0) of two Bernoulli laws, in nats. */
export function bernoulliKl(p1: number, p0: number): number {
  if (!(p0 > 0 && p0 < 1) || !(p1 >= 0 && p1 <= 1)) throw new RangeError('need 0 < p0 < 1 and 0 <= p1 <= 1');
  const term = (p: number, q: number) => (p === 0 ? 0 : p * Math.log(p / q));
  return term(p1, p0) + term(1 - p1, 1 - p0);
}

/** Fewest trials, on average, to detect p0 -> p1 with one chance alarm in `a` trials: ln(a) / KL. */
export function detectionBoundUnits(change: {
  readonly p0: number;
  readonly p1: number;
  readonly a: number;
}): number {
  return Math.log(change.a) / bernoulliKl(change.p1, change.p0);
}

/** The same bound as a time, at `unitsPerHour` trials an hour. */
export function detectionBoundHours(
  change: { readonly p0: number; readonly p1: number; readonly a: number },
  unitsPerHour: number,
): number {
  return detectionBoundUnits(change) / unitsPerHour;
}

/**
 * Average run length, in trials, of the integer CUSUM from a statistic of 0, when a trial is bad
 * with probability `p`: the exact solution of the Markov chain on the states 0..H−1,
 *   L(i) = 1 + p·L(i + fail) + (1 − p)·L(max(0, i − pass)),  L(j) = 0 for j ≥ H,
 * by banded Gaussian elimination: ArlChain of src/spc/bernoulli.ts, with which the exporter
 * designs its charts (H × pass × fail operations).
 */
export function bernoulliArl(design: Omit<BernoulliDesign, 'llrPerStep'>, p: number): number {
  return new ArlChain(design.failWeight, design.passWeight, p).arl(design.h);
}
