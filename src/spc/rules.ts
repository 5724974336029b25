/**
 * Phase II: the eight Nelson rules over the newest points of a series, in one O(n) pass with a few
 * counters. A rule's count is the number of evaluated points at which its condition completes: a
 * run of 11 on one side with run length 9 counts 3. Points before the range may complete a run
 * (as context) but are not counted. docs/measurements.md defines each rule.
 */
import type { ControlLimits } from './limits.ts';

/** Rule 1: one point beyond `sigmas` from the centre (strictly; on the limit is in control). */
interface BeyondRule {
  readonly enabled: boolean;
  readonly sigmas: number;
}
/** Rules 2, 3 and 4: `points` in a row. */
interface RunRule {
  readonly enabled: boolean;
  readonly points: number;
}
/** Rules 5 and 6: `count` of the last `of` points beyond `sigmas`, on the same side. */
interface CountOfRule {
  readonly enabled: boolean;
  readonly count: number;
  readonly of: number;
  readonly sigmas: number;
}
/** Rules 7 and 8: `points` in a row within (7) or beyond (8) `sigmas`. */
interface ZoneRunRule {
  readonly enabled: boolean;
  readonly points: number;
  readonly sigmas: number;
}

/** Settings of the eight rules, keyed by Nelson's numbers. */
export interface RulesConfig {
  readonly 1: BeyondRule;
  readonly 2: RunRule;
  readonly 3: RunRule;
  readonly 4: RunRule;
  readonly 5: CountOfRule;
  readonly 6: CountOfRule;
  readonly 7: ZoneRunRule;
  readonly 8: ZoneRunRule;
}

/** Nelson's rules as he published them (1984). Western Electric's variants differ in run lengths only. */
export const NELSON_RULES: RulesConfig = {
  1: { enabled: true, sigmas: 3 },
  2: { enabled: true, points: 9 },
  3: { enabled: true, points: 6 },
  4: { enabled: true, points: 14 },
  5: { enabled: true, count: 2, of: 3, sigmas: 2 },
  6: { enabled: true, count: 4, of: 5, sigmas: 1 },
  7: { enabled: true, points: 15, sigmas: 1 },
  8: { enabled: true, points: 8, sigmas: 1 },
};

/** Rule numbers in order. */
export const RULE_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8] as const;

/** Results of one evaluation; reusable across series (see {@link createRuleResults}). */
export interface RuleResults {
  /** Violations of rule r at `count[r - 1]`; 0 for a rule that is switched off. */
  readonly count: Int32Array;
  /** Index (into the values) of the last violation of rule r at `lastIndex[r - 1]`; -1 when none. */
  readonly lastIndex: Int32Array;
}

/** Result storage, reusable for the next series. */
export function createRuleResults(): RuleResults {
  return { count: new Int32Array(8), lastIndex: new Int32Array(8).fill(-1) };
}

/** The centre and sigma the zones are built from, plus the I chart limits for rule 1 at 3 sigma. */
export type ZoneLimits = Pick<ControlLimits, 'center' | 'sigma' | 'ucl' | 'lcl'>;

/** The longest look-back any enabled rule needs, in points (including the completing point). */
export function lookBack(rules: RulesConfig): number {
  let n = 1;
  if (rules[2].enabled) n = Math.max(n, rules[2].points);
  if (rules[3].enabled) n = Math.max(n, rules[3].points);
  if (rules[4].enabled) n = Math.max(n, rules[4].points);
  if (rules[5].enabled) n = Math.max(n, rules[5].of);
  if (rules[6].enabled) n = Math.max(n, rules[6].of);
  if (rules[7].enabled) n = Math.max(n, rules[7].points);
  if (rules[8].enabled) n = Math.max(n, rules[8].points);
  return n;
}

/** What the rules evaluate against. */
export interface RuleOptions {
  readonly limits: ZoneLimits;
  readonly rules: RulesConfig;
}

// At 3 sigma the chart's own limits are used, so that a point is evaluated against exactly the
// exported UCL/LCL (and a given plan's limits, which need not be symmetric, hold as given).
function upper(l: ZoneLimits, k: number): number {
  return k === 3 ? l.ucl : l.center + k * l.sigma;
}
function lower(l: ZoneLimits, k: number): number {
  return k === 3 ? l.lcl : l.center - k * l.sigma;
}

/** The window `[windowStart, end)`, the new points `[newStart, end)`, the first context index. */
export interface WindowAndNewSpan {
  readonly windowStart: number;
  readonly newStart: number;
  readonly end: number;
  readonly contextStart: number;
}

/** `window` is overwritten; the new points' violations are added to `events`. */
export interface WindowAndNewResults {
  readonly window: RuleResults;
  readonly events: Float64Array;
}

/**
 * Evaluates the enabled rules over the window into `window` and adds the new points' violations
 * to `events`, in one pass: a rule's outcome at a point depends only on the `lookBack(rules)`
 * points ending there. A point on the centre line is on neither side (it breaks a rule 2 run), an
 * equal step breaks rules 3 and 4, and a rule 5 or 6 hit counts only at a point itself beyond the
 * zone. Checked against an independent evaluation (test/helpers/nelson-rules.ts).
 */
export function evaluateWindowAndNew(
  values: ArrayLike<number>,
  span: WindowAndNewSpan,
  opts: RuleOptions & WindowAndNewResults,
): void {
  const { windowStart, newStart, end } = span;
  const { rules, window } = opts;
  const first = Math.min(windowStart, newStart);
  const from = Math.max(span.contextStart, first - (lookBack(rules) - 1), 0);
  window.count.fill(0);
  window.lastIndex.fill(-1);
  const mask = enabledMask(rules);
  const z = zonesOf(opts.limits, rules);
  // Locals, not the zones' fields: the loop then reads no object.
  const { center, hi1, lo1, run2, run3, run4, hi5, lo5, need5, of5, hi6, lo6, need6, of6 } = z;
  const { hi7, lo7, run7, hi8, lo8, run8 } = z;
  const { count, lastIndex } = window;
  const events = opts.events;
  let up = 0;
  let down = 0;
  let rising = 0;
  let falling = 0;
  let endsUp = 0;
  let endsDown = 0;
  let ups5 = 0;
  let downs5 = 0;
  let ups6 = 0;
  let downs6 = 0;
  let within = 0;
  let outside = 0;
  // NaN before the first point: no step up or down there, as rules 3 and 4 count steps.
  let prev = Number.NaN;
  // Comparisons as 0 or 1 and runs as products: the branches would be unpredictable, in a hot loop.
  for (let i = from; i < end; i++) {
    const x = values[i]!;
    let hits = +(x > hi1) | +(x < lo1);
    up = (up + 1) * +(x > center);
    down = (down + 1) * +(x < center);
    hits |= (+(up >= run2) | +(down >= run2)) << 1;
    const isUp = +(x > prev);
    const isDown = +(x < prev);
    rising = (rising + 1) * isUp;
    falling = (falling + 1) * isDown;
    hits |= (+(rising >= run3 - 1) | +(falling >= run3 - 1)) << 2;
    const stepUp = (endsDown + 1) * isUp;
    endsDown = (endsUp + 1) * isDown;
    endsUp = stepUp;
    hits |= (+(endsUp >= run4 - 1) | +(endsDown >= run4 - 1)) << 3;
    prev = x;
    const up5 = +(x > hi5);
    const down5 = +(x < lo5);
    const up6 = +(x > hi6);
    const down6 = +(x < lo6);
    ups5 += up5;
    downs5 += down5;
    ups6 += up6;
    downs6 += down6;
    if (i - of5 >= from) {
      const y = values[i - of5]!;
      ups5 -= +(y > hi5);
      downs5 -= +(y < lo5);
    }
    if (i - of6 >= from) {
      const y = values[i - of6]!;
      ups6 -= +(y > hi6);
      downs6 -= +(y < lo6);
    }
    hits |= ((up5 & +(ups5 >= need5)) | (down5 & +(downs5 >= need5))) << 4;
    hits |= ((up6 & +(ups6 >= need6)) | (down6 & +(downs6 >= need6))) << 5;
    within = (within + 1) * (+(x < hi7) & +(x > lo7));
    outside = (outside + 1) * (+(x > hi8) | +(x < lo8));
    hits |= (+(within >= run7) << 6) | (+(outside >= run8) << 7);
    hits &= mask;
    if (hits !== 0) addHits(hits, { i, windowStart, newStart }, { count, lastIndex, events });
  }
}

function addHits(
  hits: number,
  at: { readonly i: number; readonly windowStart: number; readonly newStart: number },
  into: { readonly count: Int32Array; readonly lastIndex: Int32Array; readonly events: Float64Array },
): void {
  const { i } = at;
  for (let k = 0; k < 8; k++) {
    if ((hits & (1 << k)) === 0) continue;
    if (i >= at.windowStart) {
      into.count[k]!++;
      into.lastIndex[k] = i;
    }
    if (i >= at.newStart) into.events[k]!++;
  }
}

function enabledMask(rules: RulesConfig): number {
  let mask = 0;
  for (const r of RULE_NUMBERS) if (rules[r].enabled) mask |= 1 << (r - 1);
  return mask;
}

function zonesOf(l: ZoneLimits, rules: RulesConfig) {
  return {
    center: l.center,
    hi1: upper(l, rules[1].sigmas),
    lo1: lower(l, rules[1].sigmas),
    run2: rules[2].points,
    run3: rules[3].points,
    run4: rules[4].points,
    hi5: upper(l, rules[5].sigmas),
    lo5: lower(l, rules[5].sigmas),
    need5: rules[5].count,
    of5: rules[5].of,
    hi6: upper(l, rules[6].sigmas),
    lo6: lower(l, rules[6].sigmas),
    need6: rules[6].count,
    of6: rules[6].of,
    hi7: upper(l, rules[7].sigmas),
    lo7: lower(l, rules[7].sigmas),
    run7: rules[7].points,
    hi8: upper(l, rules[8].sigmas),
    lo8: lower(l, rules[8].sigmas),
    run8: rules[8].points,
  };
}
