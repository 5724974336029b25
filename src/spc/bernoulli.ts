/**
 * Bernoulli CUSUM (Reynolds and Stoumbos 1999) for pass/fail trials: bad with probability p0 in
 * control, looking for a rise to p1. Page's (1954) log-likelihood ratio CUSUM,
 *   S = max(0, S + ln(p1/p0))         after a failure,
 *   S = max(0, S + ln((1−p1)/(1−p0))) after a pass,
 * finds p1 in the fewest units for its chance-alarm rate in Lorden's worst case (Moustakides 1986);
 * its delay grows as ln(ARL0) / KL(p1‖p0) (Lorden 1971), an asymptotic term, not a finite-ARL0 floor.
 *
 * The increments are integers (a pass subtracts at most {@link PASS_WEIGHT}, a failure adds the
 * rounded ratio of the log-likelihood ratios times it), so the ARL is computed exactly by a Markov
 * chain on the lattice (Brook and Evans 1972): H is the smallest whose in-control ARL reaches the
 * target. Rounding moves the weights' ratio by at most 1/(2 × failure weight), under 1 % for the
 * defaults. At a low p0 the pass weight shrinks so the failure weight stays near
 * {@link RESOLUTION}: the chain stays a few thousand states wide.
 */

/** Largest integer weight of a pass (subtracted): the lattice's resolution. */
export const PASS_WEIGHT = 16;

/** The failure weight a lattice aims at when the pass weight must shrink below {@link PASS_WEIGHT}. */
export const RESOLUTION = 128;

/** The in-control and shifted probabilities of a bad trial (failure, retest), 0 < p0 < p1 < 1. */
export interface BernoulliShift {
  readonly p0: number;
  readonly p1: number;
}

/** A Bernoulli CUSUM's integer weights and decision interval. */
export interface BernoulliDesign {
  readonly failWeight: number;
  readonly passWeight: number;
  /** The statistic signals when it reaches H. */
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
 * The system (I − Q)·L = 1 of the integer CUSUM with bad-trial probability `p` (Brook and Evans
 * 1972): row i has 1 on the diagonal, −p at i + fail, −(1 − p) at max(0, i − pass); the chain of
 * H is its first H rows and columns. I − Q is a banded M-matrix, so elimination without pivoting
 * is stable and keeps the band; the eliminated rows of H' < H are the first H' rows of H's. Rows
 * are eliminated once, and each H costs one back substitution, with the same arithmetic in the
 * same order as one chain of H: each ARL is the same number to the last bit.
 */
export class ArlChain {
  private readonly width: number;
  /** band[i × width + (j − i + pass)] holds row i, column j, for i − pass ≤ j ≤ i + fail. */
  private band = new Float64Array(0);
  private rhs = new Float64Array(0);
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
    if (n > this.rhs.length) {
      const rows = Math.max(n, 2 * this.rhs.length);
      const band = new Float64Array(rows * this.width);
      band.set(this.band);
      const rhs = new Float64Array(rows);
      rhs.set(this.rhs);
      this.band = band;
      this.rhs = rhs;
    }
    for (let i = this.rows; i < n; i++) this.eliminate(i);
    this.rows = n;
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

/** The design with the smallest H whose in-control ARL is at least `arl0` (callers keep it). */
export function designBernoulliCusum(shift: BernoulliShift, arl0: number): BernoulliDesign {
  const weights = bernoulliWeights(shift);
  const chain = new ArlChain(weights.failWeight, weights.passWeight, shift.p0);
  // Start near Wald's h = ln(ARL0), in lattice steps: the bisection then takes a few chains.
  let hi = Math.max(1, Math.ceil(Math.log(arl0) / weights.llrPerStep));
  while (chain.arl(hi) < arl0) hi *= 2;
  let lo = Math.floor(hi / 2);
  while (lo > 0 && chain.arl(lo) >= arl0) lo = Math.floor(lo / 2);
  // Invariant: chain.arl(lo) < arl0 <= chain.arl(hi); the ARL grows with H.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (chain.arl(mid) >= arl0) hi = mid;
    else lo = mid;
  }
  return { ...weights, h: hi };
}

/** One Bernoulli CUSUM: an integer statistic, restarted at 0 after each signal. */
export class BernoulliCusum {
  private s = 0;
  private shown = 0;

  constructor(private current: BernoulliDesign) {}

  /** The design in use. */
  get design(): BernoulliDesign {
    return this.current;
  }

  /** Changes the design keeping the evidence (in nats, below the new H): never signals by itself. */
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
    this.s = 0;
    return true;
  }

  /** The statistic as a fraction of H; after a signal, the sum that crossed until the next trial. */
  get ratio(): number {
    return this.shown / this.current.h;
  }
}

/**
 * The shift as an odds ratio R of a bad trial: p1 = R·o / (1 + R·o), o = p0 / (1 − p0). It means
 * the same at every level, where a difference of points does not.
 */
export function shiftByOddsRatio(p0: number, ratio: number): BernoulliShift {
  if (!(p0 > 0 && p0 < 1) || !(ratio > 1))
    throw new RangeError(`need 0 < p0 < 1 and ratio > 1, got ${p0}, ${ratio}`);
  const odds = (p0 / (1 - p0)) * ratio;
  return { p0, p1: odds / (1 + odds) };
}

/**
 * Rounds a probability to steps of `step` in log-odds: close levels share one design, and a level
 * that wobbles keeps its chart. 0.05 moves the odds 5 %, inside a week's estimation error.
 */
export function onLogitGrid(p: number, step = 0.05): number {
  const logit = Math.round(Math.log(p / (1 - p)) / step) * step;
  return 1 / (1 + Math.exp(-logit));
}

/** Options of {@link BernoulliBaseline}; `binMs` is the width of a bin of counts. */
export interface BernoulliBaselineOptions {
  readonly binMs: number;
  /** Bins the level is estimated from. */
  readonly bins: number;
  /** Most recent bins left out, so a change being found is not part of its own reference. */
  readonly lagBins: number;
}

/** One pass/fail trial at epoch ms `time`; `bad` is a fail (or a retest). */
export interface TimedTrial {
  readonly time: number;
  readonly bad: boolean;
}

/**
 * The own level of pass/fail trials: trials and bad ones per time bin over a long window, two
 * 16-bit counts a bin (65,535 an hour is far above a station's pace).
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

  /** The level as of `now`, shrunk toward `prior.p` by `prior.weight` trials. */
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
  /** Undefined when the rate cannot be charted (memoised by the caller). */
  readonly designOf: (p0: number) => BernoulliDesign | undefined;
}

/**
 * A Bernoulli CUSUM against the stream's own level (its baseline shrunk toward its target),
 * re-estimated at each new bin; a new level re-designs keeping the evidence.
 */
export class OwnLevelCusum {
  private cusum: BernoulliCusum | undefined;
  private readonly baseline: BernoulliBaseline;
  private target: number | undefined;
  /** Bin of the trial the design was last chosen at. */
  private designedBin = Number.NaN;

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

  /** Undefined when not charted. */
  get ratio(): number | undefined {
    return this.cusum?.ratio;
  }

  /** The design in use, undefined when not charted. */
  get design(): BernoulliDesign | undefined {
    return this.cusum?.design;
  }

  private redesign(time: number, bin: number): void {
    this.designedBin = bin;
    const level = this.baseline.level(time, { p: this.target!, weight: this.model.prior });
    const design = this.model.designOf(level);
    if (!design) this.cusum = undefined;
    else if (!this.cusum) this.cusum = new BernoulliCusum(design);
    else this.cusum.redesign(design);
  }
}
