/**
 * `npm run bench:spc-skew`: the realistic plant's delays to mean shifts under variants of the
 * shift detectors' handling of skewed data, against the shipped code, per name: how much of an
 * upward shift's slowness on the right-skewed names each change would win. Paired: every variant
 * sees the same charts, baselines and shifted points. Delays only (mean points from the first
 * shifted point to the signal, from steady operation); chance rates are `bench:spc`'s, and only
 * the per-side reference value keeps its in-control run length by construction.
 *
 * Variants: `shipped` (src/spc as it is), `box-cox` (the Wilson–Hilferty cube root, exact for
 * gamma data, at the calibration's skewness instead of the lognormal), `k-per-side` (the fast
 * CUSUM's long-tail side with k half the mean transformed shift of a 3 sigma shift and h raised
 * to keep that side's in-control run length by the Brook–Evans chain), `more-skew` (the skewness
 * the transform follows × 1.5), `residuals` (the fast CUSUM on AR(1) residuals, its h not widened
 * for phi) and `raw` (no transform: a bound, not a design, as the long tails would multiply the
 * chance signals).
 *
 * Arguments: --charts=N per name (default 200), --seed=X (default 1), --names=a,b (default all).
 * Prints a Markdown table to stdout.
 */
import { REALISTIC_BEHAVIOUR } from '../../src/simulator/realistic.ts';
import { standardDraw } from '../../src/simulator/shapes.ts';
import { BaselineBuckets, BaselineCollector, BUCKETS_PER_BASELINE } from '../../src/spc/baseline.ts';
import { type Calibration, calibrated, lognormalOfSkewness } from '../../src/spc/calibration.ts';
import { detectorValue, effectiveParams, FAST_CUSUM } from '../../src/spc/detector-state.ts';
import { type ControlLimits, limitsFromSums } from '../../src/spc/limits.ts';
import { oneSidedCusumArl } from '../../test/helpers/run-length.ts';
import { SHIPPED_CUSUM_PAIR } from './shipped-detectors.ts';
import { splitmix64Fast } from './splitmix-fast.ts';

const BUCKET_MS = (7 * 86_400_000) / BUCKETS_PER_BASELINE;
const BASELINE_POINTS = 5040;
const WARM_POINTS = 60;
const MAX_DELAY = 3000;
const SHIFTS = [1, 2, 3, -2, -3];
const PARAMS = SHIPPED_CUSUM_PAIR;
const VARIANTS = ['shipped', 'box-cox', 'k-per-side', 'more-skew', 'residuals', 'raw'] as const;
type Variant = (typeof VARIANTS)[number];

/** One side of a CUSUM. */
interface Side {
  readonly k: number;
  readonly h: number;
  readonly cap: number;
  readonly fir: boolean;
}

/** A two-sided CUSUM whose sides may differ. */
class SidedCusum {
  private up = 0;
  private down = 0;
  constructor(
    private readonly upper: Side,
    private readonly lower: Side,
  ) {
    this.restart();
  }
  restart(): void {
    this.up = this.upper.fir ? this.upper.h / 2 : 0;
    this.down = this.lower.fir ? this.lower.h / 2 : 0;
  }
  /** Adds a value; true at a signal. */
  add(z: number): boolean {
    const u = Math.max(-this.upper.cap, Math.min(this.upper.cap, z));
    const d = Math.max(-this.lower.cap, Math.min(this.lower.cap, z));
    this.up = Math.max(0, this.up + u - this.upper.k);
    this.down = Math.max(0, this.down - d - this.lower.k);
    return this.up > this.upper.h || this.down > this.lower.h;
  }
}

/** The fast CUSUM's one-sided in-control run length on normal data, by the chain. */
const FAST_ONE_SIDED = oneSidedCusumArl({ k: FAST_CUSUM.k, h: FAST_CUSUM.h, cap: FAST_CUSUM.cap }, 0, {
  states: 200,
});

/** The h that gives a side of reference value `k` (cap 3.5) the fast CUSUM's one-sided run length. */
const hOfK = new Map<number, number>();
function hForK(k: number): number {
  const key = Math.round(k * 100) / 100;
  let h = hOfK.get(key);
  if (h === undefined) {
    let lo = FAST_CUSUM.h;
    let hi = 3 * FAST_CUSUM.h;
    for (let i = 0; i < 30; i++) {
      const m = (lo + hi) / 2;
      if (oneSidedCusumArl({ k: key, h: m, cap: FAST_CUSUM.cap }, 0, { states: 200 }) < FAST_ONE_SIDED)
        lo = m;
      else hi = m;
    }
    h = (lo + hi) / 2;
    hOfK.set(key, h);
  }
  return h;
}

/**
 * The mean shift, in the transformed values, of a raw shift of `delta` sigma, for values of the
 * transform's own lognormal model (quadrature over its normal variable).
 */
function transformedShift(c: Calibration, delta: number): number {
  let sum = 0;
  let weight = 0;
  for (let u = -8; u <= 8; u += 0.05) {
    const w = Math.exp((-u * u) / 2);
    const up = c.skewness > 0;
    const y = Math.exp(c.logS * (up ? u : -u));
    const x = c.center + c.sigma * ((up ? 1 : -1) * ((y - c.logM) / c.logSd));
    sum += w * (calibrated(c, x + delta * c.sigma) - calibrated(c, x));
    weight += w;
  }
  return sum / weight;
}

/** Wilson–Hilferty: the standardized value's cube root, standardized for a gamma of skewness g. */
function cubeRoot(c: Calibration, x: number): number {
  const g = Math.abs(c.skewness);
  const sign = c.skewness > 0 ? 1 : -1;
  const z = (sign * (x - c.center)) / c.sigma;
  const t = (Math.cbrt(1 + (g * z) / 2) - (1 - (g * g) / 36)) / (g / 6);
  return sign * Math.max(-8, Math.min(8, t));
}

/** A chart's detectors under a variant. */
class VariantChart {
  private readonly value: (x: number) => number;
  private readonly main: SidedCusum;
  private readonly fast: SidedCusum;
  private readonly phi: number;
  private readonly residuals: boolean;
  private previous = Number.NaN;

  constructor(limits: ControlLimits, variant: Variant) {
    let c = limits.calibration!;
    if (variant === 'more-skew' && c.skewness !== 0) {
      const skewness = c.skewness * 1.5;
      c = { ...c, skewness, ...lognormalOfSkewness(Math.abs(skewness)) };
    }
    const own: ControlLimits = { ...limits, calibration: c };
    const params = effectiveParams(PARAMS, own);
    this.phi = c.phi;
    this.residuals = variant === 'residuals';
    this.value =
      variant === 'raw'
        ? (x) => (x - c.center) / c.sigma
        : variant === 'box-cox' && c.logS > 0
          ? (x) => cubeRoot(c, x)
          : (x) => detectorValue(own, x);
    const m = params.cusum;
    const mainSide: Side = { k: m.k, h: m.h, cap: m.cap ?? Number.POSITIVE_INFINITY, fir: m.fir };
    const f = params.fast!;
    let fastSide: Side = { k: f.k, h: f.h, cap: f.cap ?? Number.POSITIVE_INFINITY, fir: f.fir };
    if (this.residuals) fastSide = { ...fastSide, h: f.h / ((1 + c.phi) / (1 - c.phi)) ** 0.75 };
    let fastUpper = fastSide;
    let fastLower = fastSide;
    if (variant === 'k-per-side' && c.logS > 0) {
      const long = c.skewness > 0 ? 1 : -1;
      const k = Math.min(f.k, Math.abs(transformedShift(c, 3 * long)) / 2);
      // h scaled by the widenings the shipped h carries (autocorrelation, tails).
      const side = { ...fastSide, k, h: hForK(k) * (f.h / FAST_CUSUM.h) };
      if (long > 0) fastUpper = side;
      else fastLower = side;
    }
    this.main = new SidedCusum(mainSide, mainSide);
    this.fast = new SidedCusum(fastUpper, fastLower);
  }

  restart(): void {
    this.main.restart();
    this.fast.restart();
  }

  /** Steps a point; true at a signal (then both restart). */
  step(x: number): boolean {
    const z = this.value(x);
    const g = Math.sqrt(1 - this.phi * this.phi);
    const r = this.residuals && !Number.isNaN(this.previous) ? (z - this.phi * this.previous) / g : z;
    this.previous = z;
    const a = this.main.add(z);
    const b = this.fast.add(this.residuals ? r : z);
    if (a || b) this.restart();
    return a || b;
  }
}

/** Mean points to the signal per shift, for one name and variant, over `charts` paired charts. */
function delays(name: string, variant: Variant, charts: number, seed: number): number[] {
  const b = REALISTIC_BEHAVIOUR[name]!;
  const sums = SHIFTS.map(() => 0);
  let n = 0;
  for (let c = 0; c < charts; c++) {
    const rng = splitmix64Fast(BigInt(seed) * 1_000_003n + BigInt(c) * 7919n + BigInt(name.length) * 99_991n);
    let ar = 0;
    let started = false;
    const gain = Math.sqrt(1 - b.phi * b.phi);
    const next = () => {
      const e = standardDraw(b.shape, rng);
      ar = started ? b.phi * ar + gain * e : e;
      started = true;
      return ar;
    };
    const first = next();
    const buckets = new BaselineBuckets(
      { originMs: 0, widthMs: BUCKET_MS, capacity: BUCKETS_PER_BASELINE + 3 },
      first,
    );
    buckets.push(0, first);
    for (let i = 1; i < BASELINE_POINTS; i++) buckets.push(i * 120_000, next());
    const into = new BaselineCollector(first);
    buckets.collect(0, into);
    const r = limitsFromSums(into.sums, { minSamples: 25, kind: 'rolling', anchor: first });
    if (!r.ok || r.limits.calibration === undefined) continue;
    const chart = new VariantChart(r.limits, variant);
    n++;
    SHIFTS.forEach((size, s) => {
      for (let i = 0; i < WARM_POINTS; i++) chart.step(next());
      let k = 1;
      while (k < MAX_DELAY && !chart.step(next() + size)) k++;
      sums[s]! += k;
      chart.restart();
    });
  }
  return sums.map((x) => x / Math.max(1, n));
}

function arg(name: string): string | undefined {
  return process.argv
    .slice(2)
    .find((x) => x.startsWith(`--${name}=`))
    ?.slice(name.length + 3);
}

function main(): void {
  const charts = Number(arg('charts') ?? 200);
  const seed = Number(arg('seed') ?? 1);
  const names = arg('names')?.split(',') ?? Object.keys(REALISTIC_BEHAVIOUR);
  const head = SHIFTS.map((s) => `${s > 0 ? '+' : ''}${s} σ`);
  process.stdout.write(
    `Mean points to the signal, ${charts} charts per name, seed ${seed} (the same charts for every variant)\n\n`,
  );
  process.stdout.write(
    `| Name | variant | ${head.join(' | ')} |\n|---|---|${head.map(() => '---|').join('')}\n`,
  );
  const totals = new Map(VARIANTS.map((v) => [v, SHIFTS.map(() => 0)]));
  for (const name of names) {
    for (const variant of VARIANTS) {
      const d = delays(name, variant, charts, seed);
      d.forEach((x, i) => {
        totals.get(variant)![i]! += x / names.length;
      });
      process.stdout.write(`| ${name} | ${variant} | ${d.map((x) => x.toFixed(2)).join(' | ')} |\n`);
    }
  }
  for (const variant of VARIANTS)
    process.stdout.write(
      `| **mean of ${names.length} names** | ${variant} | ${totals
        .get(variant)!
        .map((x) => x.toFixed(2))
        .join(' | ')} |\n`,
    );
}

main();
