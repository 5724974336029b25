/**
 * The `control` config fragment: defaults, the three kinds of baseline, rule settings, and the
 * exact path and message of each error (formatted the way the config loader formats them).
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type ControlConfig, controlSchema } from '../../src/config/control-schema.ts';
import { configErrorMap, flattenIssues, formatIssue } from '../../src/config/issues.ts';
import { NELSON_RULES } from '../../src/spc/rules.ts';

const DAY = 86_400_000;

/** The `names` entry that charts a measurement name: the first match, as the control charts pick it. */
const entryFor = (c: ControlConfig, name: string) => c.names.find((n) => n.pattern.test(name));

function ok(yaml: string) {
  const r = controlSchema.safeParse(parse(yaml) ?? undefined, { error: configErrorMap });
  if (!r.success) throw new Error(flattenIssues(r.error.issues).map(formatIssue).join('\n'));
  return r.data;
}

function errors(yaml: string): string[] {
  const r = controlSchema.safeParse(parse(yaml), { error: configErrorMap });
  expect(r.success).toBe(false);
  return r.success ? [] : flattenIssues(r.error.issues, ['control']).map(formatIssue);
}

describe('control config', () => {
  it('defaults: no names, a 7d rolling baseline, 25 samples, a 1h evaluation window, Nelson rules', () => {
    const c = ok('{}');
    expect(c.names).toEqual([]);
    expect(c.evaluationWindowMs).toBe(3_600_000);
    expect(c.rules).toEqual(NELSON_RULES);
    expect(ok('').names).toEqual([]);
  });

  it('names are anchored patterns; the first match decides, with the section defaults', () => {
    const c = ok(`
names: ['Voltage .*', 'Current']
baseline: { rolling: 3d }
min_samples: 40
`);
    expect(entryFor(c, 'Current')).toMatchObject({
      baseline: { kind: 'rolling', durationMs: 3 * DAY },
      minSamples: 40,
    });
    expect(c).toMatchObject({ evaluationWindowMs: 3_600_000, rules: NELSON_RULES, compensate: true });
    expect(entryFor(c, 'Voltage 3V3')?.minSamples).toBe(40);
    expect(entryFor(c, 'Current 2')).toBeUndefined();
    expect(entryFor(c, 'Supply Voltage 3V3')).toBeUndefined();
  });

  it('takes CUSUM and EWMA settings per name over the section defaults', () => {
    const c = ok(`
names:
  - { name: 'Voltage .*', cusum: { k: 0.5 }, ewma: { lambda: 0.2, l: 3 } }
  - Current
cusum: { h: 11, fast_initial_response: false }
`);
    expect(c.names.map((n) => [n.cusum, n.ewma])).toEqual([
      [
        { enabled: true, k: 0.5, h: 11, cap: 2.5, fir: false },
        { enabled: true, lambda: 0.2, L: 3 },
      ],
      [
        { enabled: true, k: 0.625, h: 11, cap: 2.5, fir: false },
        { enabled: true, lambda: 0.1, L: 4.5 },
      ],
    ]);
    expect(c.holdMs).toBe(3_600_000);
    expect(ok('hold: false').holdMs).toBe(0);
  });

  it('a frozen baseline and per-name given limits', () => {
    const c = ok(`
names:
  - name: 'Voltage 3V3'
    limits: { center: 3.3, ucl: 3.36, lcl: 3.24 }
  - name: 'Voltage .*'
    baseline: { from: '2025-03-01T00:00:00+01:00', to: '2025-03-08T00:00:00Z' }
    min_samples: 100
  - Current
`);
    expect(entryFor(c, 'Voltage 3V3')?.baseline).toEqual({
      kind: 'given',
      center: 3.3,
      ucl: 3.36,
      lcl: 3.24,
    });
    expect(entryFor(c, 'Voltage 5V')?.baseline).toEqual({
      kind: 'frozen',
      fromMs: Date.UTC(2025, 1, 28, 23, 0, 0),
      toMs: Date.UTC(2025, 2, 8, 0, 0, 0),
    });
    expect(entryFor(c, 'Voltage 5V')?.minSamples).toBe(100);
    expect(entryFor(c, 'Current')?.baseline).toEqual({ kind: 'rolling', durationMs: 7 * DAY });
  });

  it('rules: Western Electric run length, a rule switched off, the others keep their defaults', () => {
    const c = ok(`
rules:
  2: { points: 8 }
  4: { enabled: false }
  6: { count: 3, of: 4 }
`);
    expect(c.rules[2]).toEqual({ enabled: true, points: 8 });
    expect(c.rules[4]).toEqual({ enabled: false, points: 14 });
    expect(c.rules[6]).toEqual({ enabled: true, count: 3, of: 4, sigmas: 1 });
    expect(c.rules[1]).toEqual(NELSON_RULES[1]);
    expect(c.rules[8]).toEqual(NELSON_RULES[8]);
  });

  it.each([
    ['names: ["Volt[age"]', 'control.names[0]: invalid regular expression "Volt[age": '],
    ['bogus: 1', 'control.bogus: unknown key'],
    ['rules: { 9: {} }', 'control.rules.9: unknown key'],
    ['rules: { 2: { length: 8 } }', 'control.rules.2.length: unknown key'],
    ['rules: { 2: { points: 1 } }', 'control.rules.2.points: must be at least 2'],
    ['rules: { 3: { points: 2.5 } }', 'control.rules.3.points: must be an integer'],
    ['rules: { 5: { count: 4, of: 3 } }', 'control.rules.5.count: must not exceed of'],
    ['rules: { 7: { sigmas: 0 } }', 'control.rules.7.sigmas: must be greater than 0'],
    ['min_samples: 1', 'control.min_samples: must be at least 2'],
    ['baseline: {}', 'control.baseline: set rolling or from/to'],
    [
      "baseline: { rolling: 2d, from: '2025-03-01T00:00:00Z' }",
      'control.baseline: set either rolling or from/to, not both',
    ],
    ['baseline: { rolling: 8d }', 'control.baseline.rolling: duration "8d" is longer than the maximum of 7d'],
    ["baseline: { from: '2025-03-01T00:00:00Z' }", 'control.baseline.to: is required'],
    [
      "baseline: { from: '2025-03-01T00:00:00', to: '2025-03-02T00:00:00Z' }",
      'control.baseline.from: must be an RFC 3339 time with an offset, such as 2025-03-01T00:00:00Z, got "2025-03-01T00:00:00"',
    ],
    [
      "baseline: { from: '2025-03-02T00:00:00Z', to: '2025-03-01T00:00:00Z' }",
      'control.baseline.to: must be after from',
    ],
    ['baseline: { rolling: 1d, extra: 1 }', 'control.baseline.extra: unknown key'],
    [
      'names: [{ name: A, limits: { center: 1, ucl: 0, lcl: 2 } }]',
      'control.names[0].limits.lcl: must be below ucl',
    ],
    [
      'names: [{ name: A, limits: { center: 3, ucl: 2, lcl: 0 } }]',
      'control.names[0].limits.center: must lie between lcl and ucl',
    ],
    ['names: [{ name: A, limits: { center: 1, ucl: 2 } }]', 'control.names[0].limits.lcl: is required'],
    [
      'names: [{ name: A, baseline: { rolling: 1d }, limits: { center: 1, ucl: 2, lcl: 0 } }]',
      'control.names[0].limits: set either baseline or limits, not both',
    ],
    ['names: [{ name: A, slot: 1 }]', 'control.names[0].slot: unknown key'],
  ])('%s -> %s', (yaml, message) => {
    const found = errors(yaml);
    expect(
      found.some((e) => e.startsWith(message)),
      found.join('\n'),
    ).toBe(true);
  });
});
