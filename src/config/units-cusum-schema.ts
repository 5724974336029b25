/**
 * `units.cusum`: the Bernoulli CUSUMs of first-pass yield, final yield and retry ratio per line and
 * station (src/spc/bernoulli.ts, docs/measurements.md#bernoulli-cusum-of-yield-and-retries). The
 * in-control rates are the `targets` of each line and station; these fields say which rise to
 * detect fastest and how rare a chance signal must be.
 */
import { z } from 'zod';
import { always, duration, reportDuplicates } from './fields.ts';

const shift = (what: string, d: number) =>
  z
    .number()
    .gt(0)
    .lt(1)
    .default(d)
    .describe(`The ${what} the chart detects fastest, in points of the ratio (0-1), from the target.`);

/** The kinds of trial a chart can count: the `kind` label of the CUSUM families. */
export const UNIT_CUSUM_KINDS = ['first_pass_yield', 'final_yield', 'retry_ratio'] as const;

const kinds = (level: string, d: readonly (typeof UNIT_CUSUM_KINDS)[number][], why: string) =>
  z
    .array(z.enum(UNIT_CUSUM_KINDS))
    .superRefine((list, ctx) => reportDuplicates(list, ctx, { key: (x) => x, what: 'kind' }), always)
    .default([...d])
    .describe(`Kinds whose ${level} charts are exported (events and statistic); ${why}`);

/** The `units.cusum` section. */
export const unitsCusumSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Run the yield and retry CUSUMs and export their events (the shipped yield and retry alerts read them).',
      ),
    arl0: z
      .number()
      .min(100)
      .max(1e9)
      .default(2_000_000)
      .describe(
        'In-control average run length, in units (output records for the retry ratio), between chance signals ' +
          'of one chart; the decision interval is computed from it exactly (Markov chain).',
      ),
    settle: duration()
      .prefault('20m')
      .describe(
        "How long after a unit's latest output its results are final: first-pass and final yield trials are " +
          'decided then; a retest later than this counts as a new unit.',
      ),
    first_pass_yield_shift: shift('drop of first-pass yield', 0.15),
    final_yield_shift: shift('drop of final yield', 0.15),
    retry_rate_shift: shift('rise of the retry ratio', 0.1),
    station_kinds: kinds(
      'station',
      ['retry_ratio'],
      "StationHighRetryRatio reads retry_ratio; a unit's yield is decided over its line, so the stations' yield charts are left out by default.",
    ),
    line_kinds: kinds('line', UNIT_CUSUM_KINDS, 'StationLineLowFinalYield reads final_yield.'),
    statistic: z
      .boolean()
      .default(false)
      .describe(
        "Also export each chart's statistic as a fraction of its decision interval (`…_unit_cusum_ratio`, one series per chart; no shipped alert or dashboard reads it).",
      ),
  })
  .prefault({})
  .transform((c) => ({
    enabled: c.enabled,
    arl0: c.arl0,
    settleMs: c.settle,
    shifts: {
      firstPassYield: c.first_pass_yield_shift,
      finalYield: c.final_yield_shift,
      retryRate: c.retry_rate_shift,
    },
    stationKinds: c.station_kinds,
    lineKinds: c.line_kinds,
    statistic: c.statistic,
  }))
  .describe('Bernoulli CUSUMs of yield and retries per line and station, against the targets.');

/** The validated `units.cusum` section. */
export type UnitsCusumConfig = z.output<typeof unitsCusumSchema>;
