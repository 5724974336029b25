/**
 * The eight run rules on hand-built sequences. Limits are given as centre 0, UCL 3, LCL -3, so
 * sigma is 1 and the zone boundaries sit at ±1, ±2 and ±3: each expectation below is read off
 * the sequence by hand (the comments say how), never taken from the code's output.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import {
  createRuleResults,
  evaluateWindowAndNew,
  NELSON_RULES,
  type RuleResults,
  type RulesConfig,
  type ZoneLimits,
} from '../../src/spc/index.ts';
import { evaluateRules } from '../helpers/nelson-rules.ts';

const UNIT: ZoneLimits = { center: 0, sigma: 1, ucl: 3, lcl: -3 };

/** Violation counts of rules 1..8 with every point evaluated. */
function counts(values: number[], rules: RulesConfig = NELSON_RULES, evalStart = 0): number[] {
  return [...run(values, rules, evalStart).count];
}

function run(values: number[], rules: RulesConfig = NELSON_RULES, evalStart = 0): RuleResults {
  return evaluate(values, { evalStart, limits: UNIT, rules, out: createRuleResults() });
}

/** The exporter's evaluation over `values[evalStart..]`, as a window with no new points. */
function evaluate(
  values: number[],
  opts: { evalStart: number; limits: ZoneLimits; rules: RulesConfig; out: RuleResults },
): RuleResults {
  const { evalStart, limits, rules, out } = opts;
  const span = { windowStart: evalStart, newStart: values.length, end: values.length, contextStart: 0 };
  evaluateWindowAndNew(values, span, { limits, rules, window: out, events: new Float64Array(8) });
  return out;
}

/** No enabled rule is violated in the window. */
const inControl = (r: RuleResults) => r.count.every((c) => c === 0);

/** An 8-element vector with `n` at rule `rule` and zeros elsewhere. */
function only(rule: number, n = 1): number[] {
  return Array.from({ length: 8 }, (_, i) => (i === rule - 1 ? n : 0));
}

function withRule<K extends keyof RulesConfig>(rule: K, patch: Partial<RulesConfig[K]>): RulesConfig {
  return { ...NELSON_RULES, [rule]: { ...NELSON_RULES[rule], ...patch } };
}

describe('each rule alone', () => {
  it('rule 1: one point beyond 3 sigma', () => {
    // 3.5 > 3. Sides +,-,+,+,- (at most 2 in a row); only one point beyond 1 sigma.
    const seq = [0.5, -0.5, 3.5, 0.5, -0.5];
    const r = run(seq);
    expect([...r.count]).toEqual(only(1));
    expect(r.lastIndex[0]).toBe(2);
    expect(inControl(r)).toBe(false);
  });

  it('rule 1 also fires below the LCL, and a point exactly on a limit is in control', () => {
    expect(counts([0, -3.01, 0])).toEqual(only(1));
    expect(counts([0, 3, -3, 0])).toEqual(only(1, 0));
  });

  it('rule 2: nine points in a row on one side of the centre', () => {
    // Index 0 is below the centre, 1..9 above (nine points), 10 below again.
    // All eleven lie within 1 sigma (rule 7 needs 15); the steps alternate for 9 points at most.
    const seq = [-0.5, 0.2, 0.6, 0.3, 0.5, 0.4, 0.7, 0.1, 0.8, 0.3, -0.4];
    const r = run(seq);
    expect([...r.count]).toEqual(only(2));
    expect(r.lastIndex[1]).toBe(9);
  });

  it('rule 2: a point exactly on the centre breaks the run', () => {
    const seq = [0.2, 0.6, 0.3, 0.5, 0, 0.4, 0.7, 0.1, 0.8, 0.3];
    expect(counts(seq)[1]).toBe(0);
  });

  it('rule 3: six points in a row steadily increasing', () => {
    // -0.8 .. 0.7 rise five times (six points), bracketed by falls. Sides: +, then 3 -, then 4 +.
    const seq = [0.3, -0.8, -0.5, -0.2, 0.1, 0.4, 0.7, 0.2];
    const r = run(seq);
    expect([...r.count]).toEqual(only(3));
    expect(r.lastIndex[2]).toBe(6);
  });

  it('rule 3: six points in a row steadily decreasing; an equal step breaks a trend', () => {
    expect(counts([0.7, 0.4, 0.1, -0.2, -0.5, -0.8])).toEqual(only(3));
    expect(counts([0.7, 0.4, 0.1, 0.1, -0.2, -0.5, -0.8])).toEqual(only(3, 0));
  });

  it('rule 4: fourteen points in a row alternating up and down', () => {
    // +0.5, -0.5, ... fourteen points: thirteen steps, alternating. All within 1 sigma (14 < 15),
    // sides alternate.
    const seq = Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? 0.5 : -0.5));
    const r = run(seq);
    expect([...r.count]).toEqual(only(4));
    expect(r.lastIndex[3]).toBe(13);
    expect(counts(seq.slice(0, 13))).toEqual(only(4, 0));
  });

  it('rule 5: two of three points beyond 2 sigma on the same side', () => {
    // Beyond +2 at indices 1 and 3: the window 1..3 holds two, completed at index 3.
    // Beyond 1 sigma: only those two (rule 6 needs four); none beyond 3.
    const seq = [0.1, 2.5, 0.3, 2.2, 0.1];
    const r = run(seq);
    expect([...r.count]).toEqual(only(5));
    expect(r.lastIndex[4]).toBe(3);
  });

  it('rule 5: two beyond 2 sigma on opposite sides is not a violation', () => {
    expect(counts([0, -2.5, 2.5, 0])).toEqual(only(5, 0));
  });

  it('rule 5: two beyond 2 sigma that are four points apart are not two of three', () => {
    expect(counts([2.5, 0.1, -0.1, 2.5])).toEqual(only(5, 0));
  });

  it('rule 6: four of five points beyond 1 sigma on the same side', () => {
    // Beyond +1 at 0, 2, 3, 4: four in the window 0..4, completed at 4 (at 3 only three so far).
    // None beyond 2; the longest run beyond 1 sigma is three (rule 8 needs eight).
    const seq = [1.5, 0.5, 1.2, 1.8, 1.1];
    const r = run(seq);
    expect([...r.count]).toEqual(only(6));
    expect(r.lastIndex[5]).toBe(4);
  });

  it('rule 7: fifteen points in a row within 1 sigma', () => {
    // Sides change every two points; the longest trend is four points, the longest
    // alternation three steps.
    const seq = [0.5, 0.3, -0.2, -0.6, 0.4, 0.7, -0.1, -0.5, 0.2, 0.6, -0.4, -0.3, 0.1, 0.8, -0.7];
    const r = run(seq);
    expect([...r.count]).toEqual(only(7));
    expect(r.lastIndex[6]).toBe(14);
    // A sixteenth point within 1 sigma completes the condition once more.
    expect(counts([...seq, -0.6])).toEqual(only(7, 2));
    // A point exactly at 1 sigma is not within it.
    expect(counts([...seq.slice(0, 7), 1, ...seq.slice(8)])).toEqual(only(7, 0));
  });

  it('rule 8: eight points in a row beyond 1 sigma on either side', () => {
    // Alternating sides, all beyond 1 sigma, none beyond 2. Four of five on one side never
    // happens (at most three in any five), the alternation is eight points (< 14).
    const seq = [1.5, -1.5, 1.2, -1.8, 1.4, -1.3, 1.6, -1.1];
    const r = run(seq);
    expect([...r.count]).toEqual(only(8));
    expect(r.lastIndex[7]).toBe(7);
  });

  it('an in-control sequence violates nothing', () => {
    const seq = [0.5, -0.2, 1.2, 0.3, -1.1, 0.8, -0.4, 0.1, 2.1, -0.6, 0.4, -1.4, 0.2];
    const r = run(seq);
    expect([...r.count]).toEqual(only(1, 0));
    expect([...r.lastIndex]).toEqual(Array(8).fill(-1));
    expect(inControl(r)).toBe(true);
  });
});

describe('counting', () => {
  it('counts every point at which a run completes: eleven on one side with a run of nine is 3', () => {
    const seq = [0.2, 0.6, 0.3, 0.5, 0.4, 0.7, 0.1, 0.8, 0.3, 0.45, 0.35];
    const r = run(seq);
    expect(r.count[1]).toBe(3);
    expect(r.lastIndex[1]).toBe(10);
  });

  it('counts each point beyond 3 sigma', () => {
    const r = run([4, 0, -5, 0, 3.2]);
    expect(r.count[0]).toBe(3);
    expect(r.lastIndex[0]).toBe(4);
  });

  it('uses points before the evaluation range as context but counts only points inside it', () => {
    // Nine points above the centre at indices 2..10; evaluation starts at index 8.
    const seq = [-0.5, -0.5, 0.2, 0.6, 0.3, 0.5, 0.4, 0.7, 0.1, 0.8, 0.3];
    expect(run(seq, NELSON_RULES, 8).count[1]).toBe(1);
    // A point beyond 3 sigma before the evaluation range is not counted.
    const r = run([5, 0, 0.5], NELSON_RULES, 1);
    expect(r.count[0]).toBe(0);
  });

  it('reuses its result storage: a second series overwrites the first', () => {
    const out = createRuleResults();
    evaluate([4, 0], { evalStart: 0, limits: UNIT, rules: NELSON_RULES, out });
    evaluate([0, 0.5], { evalStart: 0, limits: UNIT, rules: NELSON_RULES, out });
    expect([...out.count]).toEqual(only(1, 0));
    expect(out.lastIndex[0]).toBe(-1);
    expect(inControl(out)).toBe(true);
  });
});

describe('configuration', () => {
  it('Western Electric: eight in a row on one side with rule 2 set to 8 points', () => {
    const eight = [0.2, 0.6, 0.3, 0.5, 0.4, 0.7, 0.1, 0.8];
    expect(counts(eight)[1]).toBe(0);
    expect(counts(eight, withRule(2, { points: 8 }))[1]).toBe(1);
  });

  it('a shorter trend, a wider zone and another proportion', () => {
    expect(counts([0.1, 0.2, 0.3, 0.4], withRule(3, { points: 4 }))[2]).toBe(1);
    // 2.5 is beyond 2 sigma but not beyond 2.6.
    expect(counts([0.1, 2.5, 0.3, 2.7, 0.1], withRule(5, { sigmas: 2.6 }))[4]).toBe(0);
    // Three of four beyond 1 sigma: 1.5, 1.2, 1.8 in 1.5, 0.5, 1.2, 1.8.
    expect(counts([1.5, 0.5, 1.2, 1.8], withRule(6, { count: 3, of: 4 }))[5]).toBe(1);
    // Rule 1 at 2 sigma: 2.5 counts.
    expect(counts([0, 2.5, 0], withRule(1, { sigmas: 2 }))[0]).toBe(1);
  });

  it('a switched-off rule counts nothing and does not make the chart out of control', () => {
    const r = run([0.5, 3.5, 0.5], withRule(1, { enabled: false }));
    expect([...r.count]).toEqual(only(1, 0));
    expect(r.lastIndex[0]).toBe(-1);
    expect(inControl(r)).toBe(true);
  });

  it('rule 1 at 3 sigma evaluates against the given (asymmetric) UCL and LCL themselves', () => {
    // Centre 1 between LCL -3 and UCL 3: sigma 1, but UCL is 2 sigma above the centre.
    const limits: ZoneLimits = { center: 1, sigma: 1, ucl: 3, lcl: -3 };
    const r = evaluate([1, 3.5, 1], { evalStart: 0, limits, rules: NELSON_RULES, out: createRuleResults() });
    expect(r.count[0]).toBe(1);
  });
});

describe('the window and the new points in one pass (evaluateWindowAndNew)', () => {
  it('gives what a rule-by-rule evaluation gives over the window, and over the new points as events', () => {
    const rng = splitmix64Fast(29);
    const variants: RulesConfig[] = [
      NELSON_RULES,
      withRule(4, { enabled: false }),
      withRule(2, { points: 7 }),
      withRule(5, { count: 3, of: 4 }),
      withRule(3, { points: 2 }),
    ];
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(rng.uniform() * 60);
      // Rounded to halves: ties and points on the zone boundaries, as real gauges give.
      const values = Array.from({ length: n }, () => Math.round(rng.normal() * 4) / 2);
      const rules = variants[trial % variants.length] as RulesConfig;
      const pick = () => Math.floor(rng.uniform() * (n + 1));
      const contextStart = Math.min(pick(), pick());
      const windowStart = Math.max(contextStart, pick());
      const newStart = Math.max(contextStart, pick());
      const window = evaluateRules(
        values,
        { evalStart: windowStart, end: n, contextStart },
        { limits: UNIT, rules, out: createRuleResults() },
      );
      const fresh = evaluateRules(
        values,
        { evalStart: newStart, end: n, contextStart },
        { limits: UNIT, rules, out: createRuleResults() },
      );
      const out = createRuleResults();
      const events = new Float64Array(8).fill(1);
      evaluateWindowAndNew(
        values,
        { windowStart, newStart, end: n, contextStart },
        { limits: UNIT, rules, window: out, events },
      );
      expect([...out.count]).toEqual([...window.count]);
      expect([...out.lastIndex]).toEqual([...window.lastIndex]);
      expect(inControl(out)).toBe(inControl(window));
      // Added to what the counters held.
      expect([...events]).toEqual([...fresh.count].map((c) => c + 1));
    }
  });
});
