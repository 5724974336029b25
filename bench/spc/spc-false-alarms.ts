/**
 * In-control false-alarm rates of the Nelson rules as the exporter evaluates them: the share of
 * 30-point evaluation windows (with 20 points of context) of an in-control normal process, with
 * known limits, in which each rule (and any rule) reports a violation. Run: npx tsx bench/spc/spc-false-alarms.ts
 */
import { createRuleResults, evaluateWindowAndNew, NELSON_RULES, RULE_NUMBERS } from '../../src/spc/rules.ts';
import { splitmix64 } from '../shared/random.ts';

// A sound 64-bit generator: the LCG used before lost precision past 2^53 and was not uniform.
const random = splitmix64(12345);
const normal = () => random.normal();
const N = 20000,
  W = 30,
  CTX = 20;
const perRule = new Array(8).fill(0);
let any = 0;
const out = createRuleResults();
// The events of new points, which this bench does not read.
const events = new Float64Array(8);
const limits = { center: 0, sigma: 1, ucl: 3, lcl: -3 };
for (let k = 0; k < N; k++) {
  const v = new Float64Array(CTX + W);
  for (let i = 0; i < v.length; i++) v[i] = normal();
  const span = { windowStart: CTX, newStart: CTX + W, end: CTX + W, contextStart: 0 };
  evaluateWindowAndNew(v, span, { limits, rules: NELSON_RULES, window: out, events });
  let hit = false;
  for (const r of RULE_NUMBERS)
    if (out.count[r - 1]! > 0) {
      perRule[r - 1]++;
      hit = true;
    }
  if (hit) any++;
}
console.log('any', (any / N).toFixed(3), 'per rule', perRule.map((c) => (c / N).toFixed(3)).join(' '));
