/**
 * The scale of the summary's yields and retry rate. The interface leaves it open whether they
 * are 0-1 or 0-100, so every answer is checked against the configured scale, and `auto`
 * decides per answer. The rule (also in the README, "Yield scale"):
 *
 * 1. An answer with a ratio field above 1 is in percent.
 * 2. Otherwise its unit counts decide: with `unique_output` > 0, the pairs
 *    (`first_pass_yield`, `first_pass`) and (`final_yield`, `final_pass`) fit `ratio` when
 *    |yield - pass/unique_output| <= 0.005 and `percent` when |yield/100 - pass/unique_output|
 *    <= 0.005. The answer is in the scale that some pair fits and no pair fits only the other.
 * 3. Otherwise (no output units, counts missing, or a pass share of at most 0.5 % that both
 *    scales fit) the answer is undecided.
 *
 * With `ratio` or `percent`, an answer decided for the other scale contradicts the config: all
 * its ratio fields are dropped (`scale_mismatch`), since one of them proves the whole answer's
 * scale. With `auto`, an undecided answer takes the scale last decided for this upstream (it
 * does not change scale between answers), or `ratio` before any answer was decided. After
 * scaling, a value outside 0..1 is dropped on its own (`out_of_range`).
 */
import type { Logger } from 'pino';
import type { StationSummary } from '../../upstream/types.ts';

/** The configured scale. */
export type YieldScaleSetting = 'ratio' | 'percent' | 'auto';
/** A scale an answer is in. */
export type Scale = 'ratio' | 'percent';
/** Why a summary value was dropped. */
export type DropReason = 'scale_mismatch' | 'out_of_range';

const RATIO_KEYS = ['firstPassYield', 'finalYield', 'retryRate'] as const;
/** Yield fields and the count each is the share of (over `uniqueOutput`). */
const COUNT_PAIRS = [
  ['firstPassYield', 'firstPass'],
  ['finalYield', 'finalPass'],
] as const;
/** Half a percentage point: the rounding an upstream may apply to a yield. */
const TOLERANCE = 0.005;

/** The scale an answer's own values show (rules 1 and 2), or undefined when undecided. */
export function evidentScale(summary: StationSummary): Scale | undefined {
  if (RATIO_KEYS.some((k) => (summary[k] ?? 0) > 1)) return 'percent';
  const out = summary.uniqueOutput;
  if (out === undefined || out <= 0) return undefined;
  let ratio = false;
  let percent = false;
  for (const [yieldKey, countKey] of COUNT_PAIRS) {
    const y = summary[yieldKey];
    const count = summary[countKey];
    if (y === undefined || count === undefined) continue;
    const share = count / out;
    const fitsRatio = Math.abs(y - share) <= TOLERANCE;
    const fitsPercent = Math.abs(y / 100 - share) <= TOLERANCE;
    if (fitsRatio && !fitsPercent) ratio = true;
    if (fitsPercent && !fitsRatio) percent = true;
  }
  if (ratio === percent) return undefined;
  return ratio ? 'ratio' : 'percent';
}

/** The summary with its ratio fields scaled to 0-1, and the values dropped by reason. */
interface Scaled {
  readonly summary: StationSummary;
  readonly dropped: ReadonlyMap<DropReason, number>;
}

/** Scales one answer given the scale it is taken to be in. */
function apply(summary: StationSummary, scale: Scale | 'mismatch'): Scaled {
  const out: Record<string, number | undefined> = { ...summary };
  const dropped = new Map<DropReason, number>();
  const drop = (reason: DropReason) => dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
  for (const key of RATIO_KEYS) {
    const v = summary[key];
    if (v === undefined) continue;
    delete out[key];
    if (scale === 'mismatch') {
      drop('scale_mismatch');
      continue;
    }
    const r = scale === 'percent' ? v / 100 : v;
    if (r >= 0 && r <= 1) out[key] = r;
    else drop('out_of_range');
  }
  return { summary: out as StationSummary, dropped };
}

/** Scales answers for one job; `auto` remembers the last decided scale. It warns once per reason. */
export class Scaler {
  readonly #setting: YieldScaleSetting;
  readonly #logger: Logger;
  /** The scale `auto` decided last. */
  #learned: Scale | undefined;
  readonly #warned = new Set<DropReason | Scale>();

  constructor(setting: YieldScaleSetting, logger: Logger) {
    this.#setting = setting;
    this.#logger = logger;
  }

  scale(summary: StationSummary): Scaled {
    const setting = this.#setting;
    const evident = evidentScale(summary);
    let scaled: Scaled;
    if (setting === 'auto') {
      const learned = this.#learned;
      if (evident && evident !== learned && learned !== undefined) {
        this.#warnOnce(evident, { scale: evident }, 'summary.yield_scale auto: the upstream changed scale');
      }
      this.#learned = evident ?? learned;
      scaled = apply(summary, evident ?? this.#learned ?? 'ratio');
    } else {
      scaled = apply(summary, evident !== undefined && evident !== setting ? 'mismatch' : setting);
    }
    if (scaled.dropped.has('scale_mismatch')) {
      this.#warnOnce(
        'scale_mismatch',
        { evident },
        'summary yields and retry rates are in the other scale: dropped; set summary.yield_scale',
      );
    }
    if (scaled.dropped.has('out_of_range')) {
      this.#warnOnce(
        'out_of_range',
        {},
        'a summary yield or retry rate is outside 0..1 after scaling: dropped',
      );
    }
    return scaled;
  }

  #warnOnce(key: DropReason | Scale, fields: object, msg: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger.warn({ yield_scale: this.#setting, ...fields }, msg);
  }
}
