/**
 * The eight Nelson rules evaluated rule by rule, one loop per rule, for tests: an independent
 * evaluation to check the exporter's one-pass {@link evaluateWindowAndNew} against, and the
 * rates the bench reports. Counting as in src/spc/rules.ts: a rule's violation count is the
 * number of evaluation points at which its condition completes; points before the evaluation
 * range may complete a run (as context), but only points inside it are counted.
 */
import {
  lookBack,
  RULE_NUMBERS,
  type RuleResults,
  type RulesConfig,
  type ZoneLimits,
} from '../../src/spc/rules.ts';

/** A Nelson rule number. */
type RuleNumber = (typeof RULE_NUMBERS)[number];

/** Where one rule writes its outcome. */
interface Sink {
  count: number;
  last: number;
}

/** The points {@link evaluateRules} evaluates: `values[evalStart..end)`. */
interface RuleSpan {
  readonly evalStart: number;
  readonly end: number;
  /**
   * The first index that may serve as context for runs (default 0): up to `lookBack(rules) - 1`
   * points before `evalStart`, but none before this.
   */
  readonly contextStart?: number;
}

/** What {@link evaluateRules} evaluates against and where it writes. */
interface RuleOptions {
  readonly limits: ZoneLimits;
  readonly rules: RulesConfig;
  /** Overwritten with the outcome and returned. */
  readonly out: RuleResults;
}

/** The points one rule loop reads: context from `from`, evaluated from `evalStart` to `end`. */
interface Pass {
  readonly v: ArrayLike<number>;
  readonly from: number;
  readonly evalStart: number;
  readonly end: number;
}

/** A band of two boundaries. */
interface Band {
  readonly hi: number;
  readonly lo: number;
}

/**
 * Evaluates the enabled rules over the points `values[evalStart..end)` and writes `out`.
 * Up to `lookBack(rules) - 1` points before `evalStart` (but not before `contextStart`) serve
 * as context for runs. Values must be finite and the limits must have a positive sigma
 * (use the limits functions, which refuse to produce anything else).
 */
export function evaluateRules(values: ArrayLike<number>, span: RuleSpan, opts: RuleOptions): RuleResults {
  const { evalStart, end } = span;
  const { rules, out } = opts;
  const from = Math.max(span.contextStart ?? 0, evalStart - (lookBack(rules) - 1), 0);
  const pass: Pass = { v: values, from, evalStart, end };
  const sink: Sink = { count: 0, last: -1 };
  const ctx = { limits: opts.limits, rules, sink };
  for (const r of RULE_NUMBERS) {
    sink.count = 0;
    sink.last = -1;
    if (rules[r].enabled) runRule(r, pass, ctx);
    out.count[r - 1] = sink.count;
    out.lastIndex[r - 1] = sink.last;
  }
  return out;
}

function runRule(
  r: RuleNumber,
  p: Pass,
  ctx: { readonly limits: ZoneLimits; readonly rules: RulesConfig; readonly sink: Sink },
): void {
  const { limits: l, rules, sink } = ctx;
  if (r === 1) beyond(p, { hi: upper(l, rules[1].sigmas), lo: lower(l, rules[1].sigmas) }, sink);
  else if (r === 2) sameSide(p, { center: l.center, points: rules[2].points }, sink);
  else if (r === 3) trend(p, rules[3].points, sink);
  else if (r === 4) alternating(p, rules[4].points, sink);
  else if (r === 5 || r === 6) {
    const c = rules[r];
    countOf(p, { hi: upper(l, c.sigmas), lo: lower(l, c.sigmas), need: c.count, of: c.of }, sink);
  } else if (r === 7) {
    const z = rules[7];
    withinRun(p, { hi: upper(l, z.sigmas), lo: lower(l, z.sigmas), points: z.points }, sink);
  } else {
    const z = rules[8];
    outsideRun(p, { hi: upper(l, z.sigmas), lo: lower(l, z.sigmas), points: z.points }, sink);
  }
}

// At 3 sigma the chart's own limits are used, so that a point is evaluated against exactly the
// exported UCL/LCL (and a given plan's limits, which need not be symmetric, hold as given).
function upper(l: ZoneLimits, k: number): number {
  return k === 3 ? l.ucl : l.center + k * l.sigma;
}
function lower(l: ZoneLimits, k: number): number {
  return k === 3 ? l.lcl : l.center - k * l.sigma;
}

// One plain condition per rule, each written as the rule reads, so that it checks the exporter's
// one-pass evaluation rather than repeating it.

/**
 * Counts the evaluated points at which `hit` holds, into `sink`. `hit` is called for every point
 * from `start` on, in order (the rules' runs carry state from before the window), and a hit
 * counts from `evalStart` on.
 */
function countHits(p: Pass, start: number, hit: (x: number, i: number) => boolean, sink: Sink): void {
  let count = 0;
  let last = -1;
  for (let i = start; i < p.end; i++) {
    if (hit(p.v[i]!, i) && i >= p.evalStart) {
      count++;
      last = i;
    }
  }
  sink.count = count;
  sink.last = last;
}

/** Rule 1: points beyond the band, evaluated points only. */
function beyond(p: Pass, band: Band, sink: Sink): void {
  const { hi, lo } = band;
  countHits(p, p.evalStart, (x) => x > hi || x < lo, sink);
}

/** Rule 2. A point exactly on the centre line is on neither side and breaks the run. */
function sameSide(p: Pass, rule: { readonly center: number; readonly points: number }, sink: Sink): void {
  const { center, points } = rule;
  // Two run lengths, one per side: a point on one side resets the other (and one on the
  // centre resets both).
  let up = 0;
  let down = 0;
  countHits(
    p,
    p.from,
    (x) => {
      up = x > center ? up + 1 : 0;
      down = x < center ? down + 1 : 0;
      return up >= points || down >= points;
    },
    sink,
  );
}

/**
 * {@link countHits} over the steps between neighbouring points: `step` gets each step's direction
 * (1 up, -1 down, 0 equal).
 */
function countSteps(p: Pass, step: (direction: number) => boolean, sink: Sink): void {
  let prev = p.v[p.from]!;
  countHits(
    p,
    p.from + 1,
    (x) => {
      const direction = x > prev ? 1 : x < prev ? -1 : 0;
      prev = x;
      return step(direction);
    },
    sink,
  );
}

/**
 * Counts the points that end a run of at least `points - 1` steps in which each step
 * `continues` the one before it (an equal step breaks any run).
 */
function stepRun(
  p: Pass,
  points: number,
  continues: (direction: number, previous: number) => boolean,
  sink: Sink,
): void {
  let run = 0;
  let previous = 0;
  countSteps(
    p,
    (direction) => {
      run = direction === 0 ? 0 : continues(direction, previous) ? run + 1 : 1;
      previous = direction;
      return run >= points - 1;
    },
    sink,
  );
}

/** Rule 3: `points` points, so `points - 1` steps all up or all down. An equal step breaks it. */
function trend(p: Pass, points: number, sink: Sink): void {
  stepRun(p, points, (direction, previous) => direction === previous, sink);
}

/**
 * Rule 4: `points` points whose `points - 1` steps alternate up and down: a step up extends a
 * run that ended with a step down, and the other way round; an equal step breaks it.
 */
function alternating(p: Pass, points: number, sink: Sink): void {
  stepRun(p, points, (direction, previous) => direction === -previous, sink);
}

/**
 * Rules 5 and 6: the point itself lies beyond the zone boundary and, with it, at least `need`
 * of the last `of` points lie beyond on the same side. Requiring the completing point to be
 * beyond counts each such point once instead of again at every later in-zone point.
 */
function countOf(p: Pass, rule: Band & { readonly need: number; readonly of: number }, sink: Sink): void {
  const { v, from } = p;
  const { hi, lo, need, of } = rule;
  let ups = 0;
  let downs = 0;
  countHits(
    p,
    from,
    (x, i) => {
      const up = x > hi ? 1 : 0;
      const down = x < lo ? 1 : 0;
      ups += up;
      downs += down;
      const gone = i - of;
      if (gone >= from) {
        const y = v[gone]!;
        ups -= y > hi ? 1 : 0;
        downs -= y < lo ? 1 : 0;
      }
      return (up === 1 && ups >= need) || (down === 1 && downs >= need);
    },
    sink,
  );
}

/** Counts the points that end a run of at least `points` in a row for which `inRun` holds. */
function runOf(p: Pass, points: number, inRun: (x: number) => boolean, sink: Sink): void {
  let run = 0;
  countHits(
    p,
    p.from,
    (x) => {
      run = inRun(x) ? run + 1 : 0;
      return run >= points;
    },
    sink,
  );
}

/** Rule 7: `points` in a row strictly inside (lo, hi). */
function withinRun(p: Pass, rule: Band & { readonly points: number }, sink: Sink): void {
  const { hi, lo } = rule;
  runOf(p, rule.points, (x) => x < hi && x > lo, sink);
}

/** Rule 8: `points` in a row strictly outside [lo, hi], on either side. */
function outsideRun(p: Pass, rule: Band & { readonly points: number }, sink: Sink): void {
  const { hi, lo } = rule;
  runOf(p, rule.points, (x) => x > hi || x < lo, sink);
}
