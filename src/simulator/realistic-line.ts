/**
 * The realistic plant's lines: a weighted product mix, failure rates that put each line's final
 * yield at its target ± 1 point, and stops. A first attempt is not a pass with probability p0, a
 * retest with r, and three attempts scrap the unit (flow.ts): scrap is p0·r², retry ratio
 * p0(1 + r) / (1 + p0(1 + r)).
 */
import { MAX_ATTEMPTS, NULL_RESULT_RATE } from './attempts.ts';
import { type StopKinds, StopSchedule } from './line-stops.ts';
import { hashString, Purpose, uniform } from './random.ts';

/** The final-yield target of the exporter's default config (`targets.default`), which lines sit around. */
export const FINAL_YIELD_TARGET = 0.95;
/** A line's final yield is drawn uniformly from its target ± this. */
export const FINAL_YIELD_BAND = 0.01;
/** A station's retry ratio is drawn from this range: about a quarter above the default target 0.1. */
export const RETRY_RATIO_RANGE = [0.07, 0.11] as const;
/** A retest fails at most this often: beyond it a retest would be pointless. */
const MAX_RETEST_FAIL = 0.9;

/** How the realistic plant's products follow one another on a line. */
export type ProductMix = 'interleaved' | 'lots';

/** What a realistic line adds to the textbook line model. */
export interface RealisticLine {
  readonly stops: StopSchedule | null;
  /** Cumulative weights of the line's products (the last is 1). */
  readonly cumulativeWeights: readonly number[];
  /** Units per lot when products run in lots; null when each unit's product is drawn alone. */
  readonly lotUnits: number | null;
  readonly designFinalYield: number;
}

/** The failure rates and designed ratios of one station on a realistic line. */
export interface RealisticRates {
  /** Probability that a first attempt fails (a null result comes on top). */
  readonly firstFailRate: number;
  readonly retestFailRate: number;
  readonly designRetryRatio: number;
  /** The share of units reaching this station it scraps. */
  readonly designScrap: number;
}

/** What the realistic line needs from the plant builder. */
export interface LineDraft {
  readonly seed: number;
  readonly path: string;
  readonly lineHash: number;
  readonly tz: string;
  readonly productCount: number;
  readonly elements: ReadonlyArray<{ readonly stations: ReadonlyArray<{ readonly hash: number }> }>;
  readonly stops: StopKinds | false;
  readonly productMix: ProductMix;
}

/** The line-level realism and, per element and station, the stations' rates. */
export function realisticLine(d: LineDraft): { line: RealisticLine; rates: RealisticRates[][] } {
  const u = (k: number) => uniform(d.seed, Purpose.rates, hashString(d.path), k);
  const designFinalYield = FINAL_YIELD_TARGET + FINAL_YIELD_BAND * (2 * u(0) - 1);
  // The line's loss is shared unevenly between its steps, as some tests catch more than others.
  const weights = d.elements.map((_, e) => 0.5 + u(1 + e));
  const total = weights.reduce((a, b) => a + b, 0);
  const rates = d.elements.map((el, e) => {
    const scrap = 1 - designFinalYield ** (weights[e]! / total);
    return el.stations.map((st) => {
      const [lo, hi] = RETRY_RATIO_RANGE;
      const retry = lo + (hi - lo) * uniform(d.seed, Purpose.rates, st.hash, 1);
      return ratesFor(retry, scrap);
    });
  });
  const productWeights = Array.from({ length: d.productCount }, (_, i) => 0.2 + u(100 + i));
  const sum = productWeights.reduce((a, b) => a + b, 0);
  let acc = 0;
  const cumulativeWeights = productWeights.map((w, i) => {
    acc += w / sum;
    return i === productWeights.length - 1 ? 1 : acc;
  });
  const line: RealisticLine = {
    stops:
      d.stops === false
        ? null
        : new StopSchedule({ seed: d.seed, lineHash: d.lineHash, tz: d.tz, kinds: d.stops }),
    cumulativeWeights,
    // Lots of 2 to 8 hours at 30 units an hour.
    lotUnits: d.productMix === 'lots' ? 60 + Math.floor(180 * u(200)) : null,
    designFinalYield,
  };
  return { line, rates };
}

/**
 * The rates giving a retry ratio `retry` and a scrap share `scrap`: with c = retry / (1 - retry),
 * p0 (1 + r) = c and p0 r² = scrap, so r solves r² - a r - a = 0 with a = scrap / c.
 */
export function ratesFor(retry: number, scrap: number): RealisticRates {
  const c = retry / (1 - retry);
  const a = scrap / c;
  const notPassRetest = Math.min(MAX_RETEST_FAIL, (a + Math.sqrt(a * a + 4 * a)) / 2);
  const notPassFirst = c / (1 + notPassRetest);
  const firstFailRate = Math.max(0, notPassFirst - NULL_RESULT_RATE);
  const retestFailRate = Math.max(0, notPassRetest - NULL_RESULT_RATE);
  const p0 = firstFailRate + NULL_RESULT_RATE;
  const r = retestFailRate + NULL_RESULT_RATE;
  const retries = p0 * (1 + r);
  return {
    firstFailRate,
    retestFailRate,
    designRetryRatio: retries / (1 + retries),
    designScrap: p0 * r ** (MAX_ATTEMPTS - 1),
  };
}

/** The index of the product of unit `k` (0-based into the line's products). */
export function productIndexOf(
  seed: number,
  at: { readonly lineHash: number; readonly k: number; readonly line: RealisticLine },
): number {
  const { lineHash, k, line } = at;
  const draw =
    line.lotUnits === null
      ? uniform(seed, Purpose.product, lineHash, k)
      : uniform(seed, Purpose.product, lineHash, -1 - Math.floor(k / line.lotUnits));
  const i = line.cumulativeWeights.findIndex((w) => draw < w);
  return i < 0 ? line.cumulativeWeights.length - 1 : i;
}
