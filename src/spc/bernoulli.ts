/**
 * Bernoulli CUSUM (Reynolds and Stoumbos 1999) for a stream of pass/fail trials: each unit is a
 * failure (or a retest) with probability p0 while in control; the chart looks for a rise to p1.
 * The statistic is the log-likelihood ratio CUSUM of Page (1954),
 *   S = max(0, S + ln(p1/p0))        after a failure,
 *   S = max(0, S + ln((1−p1)/(1−p0))) after a pass,
 * which, among all tests with the same chance-alarm rate, finds the shift p1 in the fewest units in
 * Lorden's worst case (Moustakides 1986). Its delay grows as ln(ARL0) / KL(p1‖p0) (Lorden 1971):
 * that is the first-order term as ARL0 grows, an asymptotic value, not a floor at a finite ARL0
 * (the exact zero-start delay is computed by the chain below). p0 is the process's own level
 * ({@link BernoulliBaseline}), and the shift an odds ratio of it ({@link shiftByOddsRatio}).
 *
 * The two increments are kept as integers (a pass subtracts at most {@link PASS_WEIGHT}, a
 * failure adds the rounded ratio of the two log-likelihood ratios times it), so that the statistic lives on a
 * lattice and its average run length is computed exactly by a Markov chain with one state per
 * lattice point (Brook and Evans 1972), not approximated: the decision interval H is the smallest
 * whose in-control ARL reaches the target. The rounding changes the ratio of the weights by at
 * most 1/(2 × the failure weight), under 1 % for the defaults, so the chart is the optimal one for
 * a p1 within that of the one asked for. Where a failure weighs far more than a pass (a low p0:
 * a station that retests 1 % of its units), the pass weight shrinks so that the failure weight
 * stays near {@link RESOLUTION}: the lattice, and so the chain's states and memory, stay a few
 * thousand wide. Pure and incremental: the state is one integer.
 */

/** Largest integer weight of a pass (subtracted): the lattice's resolution. */
export const PASS_WEIGHT = 16;

/** The failure weight a lattice aims at when the pass weight must shrink below {@link PASS_WEIGHT}. */
export const RESOLUTION = 128;

/** The in-control and shifted probabilities of a bad trial (failure, retest). */
export interface BernoulliShift {
  /** Probability of a bad trial in control, 0 < p0 < p1. */
  readonly p0: number;
  /** Probability of a bad trial after the shift to detect, p0 < p1 < 1. */
  readonly p1: number;
}

/** A Bernoulli CUSUM's integer weights and decision interval. */
export interface BernoulliDesign {
  /** Added at a bad trial. */
  readonly failWeight: number;
  /** Subtracted at a good trial (at most {@link PASS_WEIGHT}). */
  readonly passWeight: number;
  /** Decision interval: the statistic signals when it reaches H. */
  readonly h: number;
  /** Log-likelihood ratio of one lattice step (ln(p1/p0) / failWeight, about). */
  readonly llrPerStep: number;
}

/** The integer weights of a shift (the decision interval left at 0). */
export function bernoulliWeights({ p0, p1 }: BernoulliShift): Omit<BernoulliDesign, 'h'> {
  if (!(p0 > 0 && p1 > p0 && p1 < 1)) throw new RangeError(`need 0 < p0 < p1 < 1, got ${p0}, ${p1}`);
  const up = Math.log(p1 / p0);
  const down = -Math.log((1 - p1) / (1 - p0));
  const ratio = up / down;
  const passWeight = Math.min(PASS_WEIGHT, Math.max(1, Math.round(RESOLUTION / ratio)));
  const failWeight = Math.max(1, Math.round(passWeight * ratio));
  return { failWeight, passWeight, llrPerStep: down / passWeight };
}

/**
 * The linear system (I − Q)·L = 1 of the integer CUSUM whose bad trials have probability `p`, on
 * the states 0, 1, 2, … (Brook and Evans 1972): row i has 1 on the diagonal, −p at i + fail and
 * −(1 − p) at max(0, i − pass). The chain of a decision interval H is its first H rows and
 * columns (a state ≥ H has absorbed: L = 0 there).
 *
 * I − Q is banded (pass below the diagonal, fail above) and an M-matrix, so Gaussian elimination
 * without pivoting is stable and keeps the band. Eliminating row i only reads rows above it and,
 * column by column, the same columns of theirs: the eliminated rows of H' < H are the first H'
 * rows of H's. So the rows are eliminated once, in order, as far as the largest H asked (H × pass
 * × fail operations), and each H then costs one back substitution (H × fail), where solving each
 * H from scratch repeated the elimination for every H a design tries. The arithmetic is the same,
 * in the same order, as that of one chain of H: each ARL is the same number to the last bit.
 */
export class ArlChain {
  private readonly width: number;
  /** band[i × width + (j − i + pass)] holds row i, column j, for i − pass ≤ j ≤ i + fail. */
  private band = new Float64Array(0);
  private rhs = new Float64Array(0);
  /** Rows eliminated so far. */
  private rows = 0;

  constructor(
    private readonly up: number,
    private readonly down: number,
    private readonly p: number,
  ) {
    this.width = up + down + 1;
  }

  /** Average run length from a statistic of 0 with decision interval `h`. */
  arl(h: number): number {
    if (h <= 0) return 1;
    this.grow(h);
    const { band, rhs, up, width, down } = this;
    const arl = new Float64Array(h);
    for (let i = h - 1; i >= 0; i--) {
      let s = rhs[i]!;
      const end = Math.min(h - 1, i + up);
      const row = i * width - i + down;
      for (let j = i + 1; j <= end; j++) s -= band[row + j]! * arl[j]!;
      arl[i] = s / band[row + i]!;
    }
    return arl[0]!;
  }

  private grow(n: number): void {
    if (n <= this.rows) return;
    if (n > this.rhs.length) this.reserve(Math.max(n, 2 * this.rhs.length));
    for (let i = this.rows; i < n; i++) this.eliminate(i);
    this.rows = n;
  }

  private reserve(rows: number): void {
    const band = new Float64Array(rows * this.width);
    band.set(this.band);
    const rhs = new Float64Array(rows);
    rhs.set(this.rhs);
    this.band = band;
    this.rhs = rhs;
  }

  /** Sets up row i and subtracts the rows above it to clear its part below the diagonal. */
  private eliminate(i: number): void {
    const { band, rhs, up, down, width, p } = this;
    // Row r, column j is at r × width − r + pass + j: `row` is that offset less j.
    const row = i * width - i + down;
    band[row + i] = 1;
    band[row + i + up]! -= p;
    band[row + Math.max(0, i - down)]! -= 1 - p;
    rhs[i] = 1;
    for (let k = Math.max(0, i - down); k < i; k++) {
      const pivotRow = k * width - k + down;
      const f = band[row + k]! / band[pivotRow + k]!;
      if (f === 0) continue;
      for (let j = k; j <= k + up; j++) band[row + j]! -= f * band[pivotRow + j]!;
      rhs[i]! -= f * rhs[k]!;
    }
  }
}

/**
 * The design whose in-control average run length is at least `arl0` trials, with the smallest
 * such H (the fastest detection for that chance-alarm rate). A design costs one Markov chain (a
 * few milliseconds): callers keep the ones they use.
 */
export function designBernoulliCusum(shift: BernoulliShift, arl0: number): BernoulliDesign {
  const weights = bernoulliWeights(shift);
  // One elimination for every H tried: each try is then a back substitution.
  const chain = new ArlChain(weights.failWeight, weights.passWeight, shift.p0);
  const arlAt = (h: number) => chain.arl(h);
  // Start near Wald's h = ln(ARL0), in lattice steps: the bisection then takes a few chains.
  let hi = Math.max(1, Math.ceil(Math.log(arl0) / weights.llrPerStep));
  while (arlAt(hi) < arl0) hi *= 2;
  let lo = Math.floor(hi / 2);
  while (lo > 0 && arlAt(lo) >= arl0) lo = Math.floor(lo / 2);
  // Invariant: arlAt(lo) < arl0 <= arlAt(hi); the ARL grows with H.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (arlAt(mid) >= arl0) hi = mid;
    else lo = mid;
  }
  return { ...weights, h: hi };
}

/** One Bernoulli CUSUM: an integer statistic, restarted at 0 after each signal. */
export class BernoulliCusum {
  private s = 0;
  private shown = 0;
  private signals = 0;

  constructor(private current: BernoulliDesign) {}

  /** The design in use. */
  get design(): BernoulliDesign {
    return this.current;
  }

  /**
   * Changes the design (a new own level), keeping the evidence gathered: the statistic in nats,
   * put on the new lattice and kept below its H, so a re-design never signals by itself.
   */
  redesign(design: BernoulliDesign): void {
    if (design === this.current) return;
    const nats = this.s * this.current.llrPerStep;
    this.current = design;
    this.s = Math.max(0, Math.min(design.h - 1, Math.round(nats / design.llrPerStep)));
    this.shown = this.s;
  }

  /** Adds one trial (`bad`: a failure or a retest); true when it signals. Then restarts at 0. */
  add(bad: boolean): boolean {
    const { failWeight, passWeight, h } = this.current;
    this.s = bad ? this.s + failWeight : Math.max(0, this.s - passWeight);
    this.shown = this.s;
    if (this.s < h) return false;
    this.signals++;
    this.s = 0;
    return true;
  }

  /**
   * The statistic as a fraction of H, 0 to 1 and at least 1 at a signal: after a signal it shows
   * the sum that crossed H until the next trial, so that a dashboard sees the crossing.
   */
  get ratio(): number {
    return this.shown / this.current.h;
  }

  /** The statistic in nats of log-likelihood ratio. */
  get llr(): number {
    return this.shown * this.current.llrPerStep;
  }

  /** Signals since this chart was created. */
  get count(): number {
    return this.signals;
  }
}

/**
 * The shift a chart detects, as an odds ratio of a bad trial: p1 = R·o / (1 + R·o), o = p0 / (1 − p0).
 * An odds ratio keeps the same meaning at every level, where a difference of points does not: R = 4.75
 * is 0.95 → 0.80 for a line that yields 0.95 and 0.99 → 0.954 for one that yields 0.99, each a drop
 * its own history makes plain.
 */
export function shiftByOddsRatio(p0: number, ratio: number): BernoulliShift {
  if (!(p0 > 0 && p0 < 1) || !(ratio > 1))
    throw new RangeError(`need 0 < p0 < 1 and ratio > 1, got ${p0}, ${ratio}`);
  const odds = (p0 / (1 - p0)) * ratio;
  return { p0, p1: odds / (1 + odds) };
}

/**
 * Rounds a bad-trial probability to a grid of steps of `step` in its log-odds: charts whose levels
 * differ by less share one design (a Markov chain each), and a level that wobbles within a step
 * keeps its chart. A step of 0.05 moves the odds by 5 %, well inside the error of a week's estimate.
 */
export function onLogitGrid(p: number, step = 0.05): number {
  const logit = Math.round(Math.log(p / (1 - p)) / step) * step;
  return 1 / (1 + Math.exp(-logit));
}

/** Options of {@link BernoulliBaseline}. */
export interface BernoulliBaselineOptions {
  /** Width of a bin of counts, ms (an hour). */
  readonly binMs: number;
  /** Bins the level is estimated from (7 days: 168 of an hour). */
  readonly bins: number;
  /** Most recent bins left out, so that a change being found is not yet part of its own reference. */
  readonly lagBins: number;
}

/** One pass/fail trial at epoch ms `time`; `bad` is a fail (or a retest). */
export interface TimedTrial {
  readonly time: number;
  readonly bad: boolean;
}

/**
 * The own level of a stream of pass/fail trials: counts of trials and bad ones in time bins over a
 * long window, in bounded memory (two 16-bit counts a bin: a bin of an hour holds up to 65,535
 * trials, far above a station's pace). Pure: the caller gives every trial its time.
 */
export class BernoulliBaseline {
  private readonly n: Uint16Array;
  private readonly bad: Uint16Array;
  /** Bin index of the newest bin held; slots hold bins head − size + 1 … head. */
  private head = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: BernoulliBaselineOptions) {
    const size = opts.bins + opts.lagBins + 1;
    this.n = new Uint16Array(size);
    this.bad = new Uint16Array(size);
  }

  /** Adds one trial. A trial older than the window is dropped. */
  add({ time, bad }: TimedTrial): void {
    const bin = Math.floor(time / this.opts.binMs);
    this.roll(bin);
    if (bin <= this.head - this.n.length) return;
    const slot = this.slot(bin);
    if (this.n[slot]! === 0xffff) return;
    this.n[slot]!++;
    if (bad) this.bad[slot]!++;
  }

  /** Trials and bad trials of the reference bins as of epoch ms `now` (the lag left out). */
  counts(now: number): { readonly n: number; readonly bad: number } {
    const { binMs, bins, lagBins } = this.opts;
    const last = Math.floor(now / binMs) - lagBins - 1;
    let n = 0;
    let bad = 0;
    for (
      let b = Math.max(last - bins + 1, this.head - this.n.length + 1);
      b <= Math.min(last, this.head);
      b++
    ) {
      const slot = this.slot(b);
      n += this.n[slot]!;
      bad += this.bad[slot]!;
    }
    return { n, bad };
  }

  /**
   * The level as of `now`, shrunk toward `prior.p` by `prior.weight` trials:
   * (bad + weight·p) / (n + weight). A chart with little history judges against its target; one
   * with a week of its own judges mostly against that.
   */
  level(now: number, prior: { readonly p: number; readonly weight: number }): number {
    const { n, bad } = this.counts(now);
    return (bad + prior.weight * prior.p) / (n + prior.weight);
  }

  private slot(bin: number): number {
    const size = this.n.length;
    return ((bin % size) + size) % size;
  }

  private roll(bin: number): void {
    if (bin <= this.head) return;
    const size = this.n.length;
    const from =
      this.head === Number.NEGATIVE_INFINITY ? bin - size + 1 : Math.max(this.head + 1, bin - size + 1);
    for (let b = from; b <= bin; b++) {
      const slot = this.slot(b);
      this.n[slot] = 0;
      this.bad[slot] = 0;
    }
    this.head = bin;
  }
}

/** How an {@link OwnLevelCusum} finds its in-control rate: its own level, shrunk toward its target. */
export interface OwnLevelModel {
  readonly baseline: BernoulliBaselineOptions;
  /** Trials the target counts as in the level. */
  readonly prior: number;
  /** The design for an in-control rate; undefined when the rate cannot be charted (memoised by the caller). */
  readonly designOf: (p0: number) => BernoulliDesign | undefined;
}

/**
 * A Bernoulli CUSUM against the stream's own level: p0 is the share of bad trials over its
 * baseline (the last days, the most recent hours left out), shrunk toward its target; it is
 * re-estimated at each new bin of the trials' times, and a new level re-designs the chart keeping
 * the evidence gathered ({@link BernoulliCusum.redesign}).
 */
export class OwnLevelCusum {
  private cusum: BernoulliCusum | undefined;
  private readonly baseline: BernoulliBaseline;
  private target: number | undefined;
  /** Bin of the trial the design was last chosen at. */
  private designedBin = Number.NaN;
  private estimate = Number.NaN;

  constructor(private readonly model: OwnLevelModel) {
    this.baseline = new BernoulliBaseline(model.baseline);
  }

  /** Sets the target's bad-trial rate (undefined: not charted); a new one re-designs at the next trial. */
  use(target: number | undefined): void {
    if (target === this.target) return;
    this.target = target;
    this.designedBin = Number.NaN;
    // Until its first trial a chart shows 0 on the design of its target (no history yet).
    const design = target === undefined ? undefined : this.model.designOf(target);
    this.estimate = target ?? Number.NaN;
    if (!design) this.cusum = undefined;
    else if (!this.cusum) this.cusum = new BernoulliCusum(design);
  }

  /** Adds one trial; true when it signals. */
  add({ time, bad }: TimedTrial): boolean {
    if (this.target === undefined) return false;
    const bin = Math.floor(time / this.model.baseline.binMs);
    if (bin !== this.designedBin) this.redesign(time, bin);
    const signal = this.cusum?.add(bad) ?? false;
    this.baseline.add({ time, bad });
    return signal;
  }

  /** The statistic as a fraction of H (see {@link BernoulliCusum.ratio}); undefined when not charted. */
  get ratio(): number | undefined {
    return this.cusum?.ratio;
  }

  /** The level of the current design, before its rounding to the grid (NaN when not charted). */
  get level(): number {
    return this.estimate;
  }

  /** The design in use, undefined when not charted. */
  get design(): BernoulliDesign | undefined {
    return this.cusum?.design;
  }

  private redesign(time: number, bin: number): void {
    this.designedBin = bin;
    this.estimate = this.baseline.level(time, { p: this.target!, weight: this.model.prior });
    const design = this.model.designOf(this.estimate);
    if (!design) this.cusum = undefined;
    else if (!this.cusum) this.cusum = new BernoulliCusum(design);
    else this.cusum.redesign(design);
  }
}
