/** The `measurements.control` section: control charts per measurement name, as the engine's chart specs. */
import { z } from 'zod';
import type { BaselineSpec } from '../spc/index.ts';
import { NELSON_RULES, type RulesConfig } from '../spc/rules.ts';
import { always, anchoredRegex, camelKeys, duration, isRecord, keyOrPeriod } from './fields.ts';

// An offset is required: a baseline period without one would depend on the exporter's zone.
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time with an offset, parsed to Unix milliseconds. */
export function timestamp(what: string) {
  return z
    .string()
    .transform((text, ctx) => {
      const ms = TIMESTAMP_RE.test(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) {
        ctx.addIssue({
          code: 'custom',
          message: `must be an RFC 3339 time with an offset, such as 2025-03-01T00:00:00Z, got "${text}"`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ 'x-type': 'timestamp' })
    .describe(what);
}

const baselineSchema = z
  .strictObject({
    rolling: duration()
      .optional()
      .describe('Length of a rolling baseline that ends where the evaluation window begins (at most 7d).'),
    from: timestamp('Start of a frozen baseline period (inclusive), with an offset.').optional(),
    to: timestamp('End of a frozen baseline period (exclusive), with an offset.').optional(),
  })
  .superRefine(
    keyOrPeriod('rolling', {
      both: 'set either rolling or from/to, not both',
      neither: 'set rolling or from/to',
    }),
    always,
  )
  .transform(
    (b): BaselineSpec =>
      b.rolling !== undefined
        ? { kind: 'rolling', durationMs: b.rolling }
        : { kind: 'frozen', fromMs: b.from ?? 0, toMs: b.to ?? 0 },
  )
  .describe('Where the control limits come from: `{ rolling: 7d }` or a frozen period `{ from, to }`.');

const givenLimitsSchema = z
  .strictObject({
    center: z.number().describe('Centre line.'),
    ucl: z.number().describe('Upper control limit.'),
    lcl: z.number().describe('Lower control limit.'),
  })
  .superRefine((g, ctx) => {
    if (!isRecord(g) || typeof g.ucl !== 'number' || typeof g.lcl !== 'number') return;
    if (!(g.lcl < g.ucl)) ctx.addIssue({ code: 'custom', message: 'must be below ucl', path: ['lcl'] });
    else if (typeof g.center === 'number' && !(g.lcl <= g.center && g.center <= g.ucl))
      ctx.addIssue({ code: 'custom', message: 'must lie between lcl and ucl', path: ['center'] });
  }, always)
  .describe('Control limits from the control plan; sigma is taken as (ucl - lcl) / 6.');

const minSamples = z.int().min(2);

const cusumK = z
  .number()
  .positive()
  .max(5)
  .describe('Reference value in sigmas: about half the mean shift to detect fastest (0.5 for 1 sigma).');
const cusumH = z
  .number()
  .positive()
  .max(100)
  .describe('Decision interval in sigmas: a cumulative sum beyond it signals (and both sums restart).');
const ewmaLambda = z
  .number()
  .positive()
  .max(1)
  .describe('Weight of the newest point (0 < lambda <= 1): small values remember long and see small shifts.');
const ewmaL = z
  .number()
  .positive()
  .max(10)
  .describe('Width of the limits in standard deviations of the EWMA statistic.');

const nameEntry = z
  .union([
    anchoredRegex().transform((pattern) => ({
      pattern,
      baseline: undefined,
      limits: undefined,
      minSamples: undefined,
      cusum: undefined,
      ewma: undefined,
      byProduct: undefined,
    })),
    z
      .strictObject({
        name: anchoredRegex().describe('Regular expression matched against the whole measurement name.'),
        baseline: baselineSchema.optional().describe('Overrides `control.baseline` for these names.'),
        limits: givenLimitsSchema.optional(),
        min_samples: minSamples.optional().describe('Overrides `control.min_samples` for these names.'),
        cusum: z
          .strictObject({ k: cusumK.optional(), h: cusumH.optional() })
          .optional()
          .describe('Overrides `control.cusum` k and h for these names.'),
        ewma: z
          .strictObject({ lambda: ewmaLambda.optional(), l: ewmaL.optional() })
          .optional()
          .describe('Overrides `control.ewma` lambda and l for these names.'),
        by_product: z
          .boolean()
          .optional()
          .describe(
            "One chart per product (the unit's `unit_type`, through `products.allow`) instead of one for all, " +
              'with a `product` label: for names whose nominal differs between products. Needs the units collector.',
          ),
      })
      .superRefine((n, ctx) => {
        if (isRecord(n) && n.baseline !== undefined && n.limits !== undefined)
          ctx.addIssue({
            code: 'custom',
            message: 'set either baseline or limits, not both',
            path: ['limits'],
          });
      }, always)
      .transform(({ name, ...n }) => ({ pattern: name, ...camelKeys(n) })),
  ])
  .meta({ 'x-type': 'regex or mapping' });

function enabled(rule: number) {
  return z.boolean().default(true).describe(`Evaluate rule ${rule}.`);
}
function points(def: number, min: number, what: string) {
  return z.int().min(min).max(1000).default(def).describe(what);
}
function sigmas(def: number, what: string) {
  return z.number().positive().max(10).default(def).describe(what);
}

function countOf(rule: 5 | 6) {
  const d = NELSON_RULES[rule];
  return z
    .strictObject({
      enabled: enabled(rule),
      count: points(d.count, 1, 'How many of the last `of` points must lie beyond `sigmas` on one side.'),
      of: points(d.of, 1, 'How many of the newest points are looked at.'),
      sigmas: sigmas(d.sigmas, 'Distance from the centre line, in sigmas.'),
    })
    .superRefine((c, ctx) => {
      if (isRecord(c) && typeof c.count === 'number' && typeof c.of === 'number' && c.count > c.of)
        ctx.addIssue({ code: 'custom', message: 'must not exceed of', path: ['count'] });
    }, always)
    .prefault({});
}

/** A rule's settings: whether it is evaluated, and its own `fields`. */
function rule<S extends Record<string, z.ZodDefault>>(n: number, fields: S, what: string) {
  const settings = z.strictObject({ enabled: enabled(n), ...fields });
  // Every field has a default, so `{}` stands for an absent rule.
  return settings.prefault({} as z.input<typeof settings>).describe(what);
}

const rulesSchema = z
  .strictObject({
    1: rule(
      1,
      { sigmas: sigmas(3, 'A point beyond this many sigmas violates rule 1.') },
      'Rule 1: one point beyond 3 sigma.',
    ),
    2: rule(
      2,
      { points: points(9, 2, 'Points in a row on one side of the centre.') },
      'Rule 2: nine points in a row on one side of the centre (Western Electric: 8).',
    ),
    3: rule(
      3,
      { points: points(6, 3, 'Points in a row steadily rising or falling.') },
      'Rule 3: six points in a row steadily increasing or decreasing.',
    ),
    4: rule(
      4,
      { points: points(14, 3, 'Points in a row alternating up and down.') },
      'Rule 4: fourteen points in a row alternating up and down.',
    ),
    5: countOf(5).describe('Rule 5: two of three points beyond 2 sigma on the same side.'),
    6: countOf(6).describe('Rule 6: four of five points beyond 1 sigma on the same side.'),
    7: rule(
      7,
      {
        points: points(15, 2, 'Points in a row within `sigmas` of the centre.'),
        sigmas: sigmas(1, 'Half-width of the zone around the centre, in sigmas.'),
      },
      'Rule 7: fifteen points in a row within 1 sigma.',
    ),
    8: rule(
      8,
      {
        points: points(8, 2, 'Points in a row beyond `sigmas`, on either side.'),
        sigmas: sigmas(1, 'Distance from the centre line, in sigmas.'),
      },
      'Rule 8: eight points in a row beyond 1 sigma, on either side.',
    ),
  })
  .prefault({})
  .transform((r): RulesConfig => r)
  .describe('The Nelson rules, keyed by number; each can be switched off and its run lengths changed.');

/**
 * The CUSUM's defaults (k = 0.625, h = 10, cap 2.5, fast initial response): a chance signal once in
 * about 733,000 points with the fast CUSUM beside it, and a 1-sigma shift found in about 27 points
 * (`npm run bench:spc`; docs/measurements.md has the table and how to choose k, h and the cap).
 */
const cusumSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run a two-sided tabular CUSUM on every charted series.'),
    k: cusumK.default(0.625),
    h: cusumH.default(10),
    cap: z
      .number()
      .min(1)
      .max(100)
      .default(2.5)
      .describe(
        'Standardized values beyond ±cap sigmas count as ±cap, so that a few wild points (failing units, glitches) cannot signal alone; 100 for none.',
      ),
    fast_initial_response: z
      .boolean()
      .default(true)
      .describe(
        'Start, and restart after a signal, both sums at h/2: about half the delay to a shift present then.',
      ),
  })
  .prefault({})
  .transform((c) => ({ enabled: c.enabled, k: c.k, h: c.h, cap: c.cap, fir: c.fast_initial_response }))
  .describe("CUSUM for small sustained shifts, on values standardized by the chart's centre and sigma.");

/** The EWMA's defaults (λ = 0.1, L = 4.5): a chance signal once in about 218,000 points. */
const ewmaSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run an EWMA chart on every charted series.'),
    lambda: ewmaLambda.default(0.1),
    l: ewmaL.default(4.5),
  })
  .prefault({})
  .transform((e) => ({ enabled: e.enabled, lambda: e.lambda, L: e.l }))
  .describe(
    "EWMA chart with exact time-varying limits, on values standardized by the chart's centre and sigma.",
  );

/** The `measurements.control` config section. */
export const controlSchema = z
  .strictObject({
    names: z
      .array(nameEntry)
      .default([])
      .describe(
        'Measurement names to chart: a regular expression matched against the whole name, or ' +
          '`{ name, baseline, limits, min_samples }`. The first entry that matches a name applies. Empty: no charts.',
      ),
    baseline: baselineSchema.prefault({ rolling: '7d' }),
    min_samples: minSamples
      .default(25)
      .describe('Fewest baseline points from which limits are computed; with fewer, no limits and no rules.'),
    evaluation_window: duration()
      .prefault('1h')
      .describe('The newest points, evaluated by the rules; violations are counted in this window.'),
    rules: rulesSchema,
    cusum: cusumSchema,
    ewma: ewmaSchema,
    compensate_autocorrelation: z
      .boolean()
      .default(true)
      .describe(
        "On a rolling or frozen baseline, widen the configured CUSUM's h by ((1 + phi) / (1 - phi))^0.875, the fast CUSUM's by that " +
          "factor^0.75, and the EWMA's L by its " +
          "AR(1) variance factor for the baseline's lag-1 autocorrelation phi as estimated (every chart), and, " +
          "when phi is above 0.1, the I chart's sigma by 1 / sqrt(1 - phi), so that chance signals stay near " +
          'their documented rate (docs/measurements.md). Either way a chart is flagged only when phi is ' +
          'significantly above 0.1 (one-sided test at 1 %).',
      ),
    limits_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A file of approved control limits (YAML, docs/measurements.md "Approved limits"), relative to this ' +
          'file: a chart with an approved entry uses its centre, sigma and limits, frozen; the others use their ' +
          'baseline. Checked when the config loads; read again at a poll when it changed on disk (a bad file ' +
          'is logged and counted, and the last good one stays in use).',
      ),
    hold: z
      .union([z.literal(false), duration()])
      .prefault('1h')
      .describe(
        'After a CUSUM or EWMA signal, a rolling baseline keeps its limits until no signal came for this long ' +
          '(as the shipped shift alert keeps firing: keep_firing_for 1h); the points of the shift then stay out ' +
          'of the baseline. false: never hold (the baseline learns a shift within its length).',
      ),
  })
  .prefault({})
  .transform((c) => ({
    cusum: c.cusum,
    ewma: c.ewma,
    holdMs: c.hold === false ? 0 : c.hold,
    compensate: c.compensate_autocorrelation,
    names: c.names.map((n) => ({
      pattern: n.pattern,
      baseline: n.limits === undefined ? (n.baseline ?? c.baseline) : { kind: 'given' as const, ...n.limits },
      minSamples: n.minSamples ?? c.min_samples,
      cusum: { ...c.cusum, ...definedOf(n.cusum) },
      ewma: { ...c.ewma, ...definedOf({ lambda: n.ewma?.lambda, L: n.ewma?.l }) },
      byProduct: n.byProduct ?? false,
    })),
    evaluationWindowMs: c.evaluation_window,
    rules: c.rules,
    /** The approved-limits file as written; the loader resolves it against the config's directory. */
    limitsFile: c.limits_file,
  }))
  .describe('Control charts (I-MR limits and Nelson rules) per station, measurement name and slot.');

/** The keys of an override that are set (zod leaves unset optional keys out, or undefined). */
function definedOf<T extends object>(o: T | undefined): Partial<T> {
  if (o === undefined) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The validated `control` section. */
export type ControlConfig = z.output<typeof controlSchema>;
