/**
 * The scale of the summary's yields and retry rate: the interface leaves 0-1 or 0-100 open, so
 * every answer is checked (the rule: README, "Yield scale"). An answer proven in the other scale
 * than configured loses all its ratio fields (`scale_mismatch`); with `auto`, an undecided answer
 * takes the scale last decided, else `ratio`. A scaled value outside 0..1 is dropped (`out_of_range`).
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

/**
 * A ratio field above 1 is percent; else the yields against pass/unique_output decide (within
 * half a point) when some pair fits one scale only. Undefined when undecided.
 */
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

interface Scaled {
  readonly summary: StationSummary;
  readonly dropped: ReadonlyMap<DropReason, number>;
}

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
