/** The `targets` section: yield and retry targets per line and station, exported as gauges for the alerts. */
import { z } from 'zod';
import { anchoredRegex, camelKeys, isRecord, period } from './fields.ts';

const ratio = (what: string) => z.number().min(0).max(1).describe(what);

const FPY = 'Target first-pass yield (0-1): units that pass at the first attempt, over units with an output.';
const FY = 'Target final yield (0-1): units whose final result is pass, over units with an output.';
const RETRY = 'Highest acceptable retry rate (0-1): share of output records that are retests.';

const defaultTargets = z
  .strictObject({
    first_pass_yield: ratio(FPY).default(0.9),
    final_yield: ratio(FY).default(0.95),
    retry_rate: ratio(RETRY).default(0.1),
  })
  .prefault({})
  .transform(camelKeys)
  .describe('Targets of every line and station that no rule sets.');

const pattern = (level: string) =>
  anchoredRegex()
    .optional()
    .describe(`Regular expression matched against the ${level}'s name or id; absent matches every ${level}.`);

const targetRule = z
  .strictObject({
    site: pattern('site'),
    line: pattern('line'),
    station: pattern('station'),
    first_pass_yield: ratio(FPY).optional(),
    final_yield: ratio(FY).optional(),
    retry_rate: ratio(RETRY).optional(),
  })
  .superRefine((r, ctx) => {
    if (!isRecord(r)) return;
    if (r.first_pass_yield === undefined && r.final_yield === undefined && r.retry_rate === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'sets no target: give first_pass_yield, final_yield or retry_rate',
      });
    }
  })
  .transform(camelKeys);

/** The `targets` section. */
export const targetsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Export the targets as gauges (the shipped alerts need them).'),
    interval: period()
      .prefault('1m')
      .describe('How often the targets are mapped onto the current topology (no upstream requests).'),
    default: defaultTargets,
    rules: z
      .array(targetRule)
      .default([])
      .describe(
        'Targets per site, line or station pattern. For each target, the first rule that matches and sets ' +
          'it wins; a rule with a `station` pattern applies to stations only, the others to lines and stations.',
      ),
  })
  .prefault({})
  .transform((t) => ({ enabled: t.enabled, intervalMs: t.interval, default: t.default, rules: t.rules }))
  .describe('Yield and retry targets per line and station, exported by the `targets` collector.');

/** The validated targets section. */
export type TargetsConfig = z.output<typeof targetsSchema>;
/** One rule of the targets section. */
export type TargetRule = TargetsConfig['rules'][number];
/** The three targets. */
export type Targets = TargetsConfig['default'];
