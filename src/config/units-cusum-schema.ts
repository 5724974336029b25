/**
 * `units.cusum`: Bernoulli CUSUMs of yield and retry ratio per line and station (src/spc/bernoulli.ts,
 * docs/measurements.md#bernoulli-cusum-of-yield-and-retries), each against its own level.
 */
import { z } from 'zod';
import { always, duration, reportDuplicates } from './fields.ts';

const oddsRatio = (what: string, d: number, example: string) =>
  z
    .number()
    .gt(1)
    .max(100)
    .default(d)
    .describe(
      `The ${what} the chart detects fastest, as an odds ratio of a bad trial to the chart's own level (${example}).`,
    );

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
    first_pass_yield_odds_ratio: oddsRatio('drop of first-pass yield', 3, '3: 0.90 -> 0.75'),
    final_yield_odds_ratio: oddsRatio('drop of final yield', 4.75, '4.75: 0.95 -> 0.80, 0.99 -> 0.954'),
    retry_rate_odds_ratio: oddsRatio('rise of the retry ratio', 2.25, '2.25: 0.10 -> 0.20'),
    baseline: duration()
      .prefault('7d')
      .describe(
        "Window of the chart's own level p0 (its bad-trial share over this long, in hourly bins): a drop is judged against how the line or station normally runs, not against its target.",
      ),
    baseline_lag: duration()
      .prefault('3d')
      .describe(
        'Most recent time left out of the own level, so that a change being found is not yet part of its own reference (a 5-point drop of a 0.95 line takes about 40 hours to find; with 1d it was found within a week 68 % of the time, with 3d 93 %: bench:yield). Until a chart has history older than this (after a start the exporter replays 24 hours) it judges against its target.',
      ),
    baseline_prior: z
      .number()
      .min(0)
      .max(1e6)
      .default(500)
      .describe(
        "Trials the target counts as in the own level: p0 = (bad + prior x target) / (trials + prior). A chart with little history (a new line, after a restart) judges against its target; one with a week's history mostly against its own level.",
      ),
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
    oddsRatios: {
      firstPassYield: c.first_pass_yield_odds_ratio,
      finalYield: c.final_yield_odds_ratio,
      retryRate: c.retry_rate_odds_ratio,
    },
    baseline: { windowMs: c.baseline, lagMs: c.baseline_lag, prior: c.baseline_prior },
    stationKinds: c.station_kinds,
    lineKinds: c.line_kinds,
    statistic: c.statistic,
  }))
  .describe("Bernoulli CUSUMs of yield and retries per line and station, against each one's own level.");

/** The validated `units.cusum` section. */
export type UnitsCusumConfig = z.output<typeof unitsCusumSchema>;
