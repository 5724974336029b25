/**
 * The summary collector's job: send the planned summary requests, keep each entity's last
 * good answer for a while, and turn the answers into gauges.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { CollectorContext, Job, PollContext, PollOutcome } from '../collector.ts';
import { type SummaryResult, summaryFamilies } from './families.ts';
import { planSummaries } from './plan.ts';
import { learn, narrow } from './refused.ts';

/** A failed entity keeps its last good answer for this many intervals. */
const STALENESS_INTERVALS = 5;

/** Last good answers by slot key, carried from poll to poll. */
type SummaryMemory = ReadonlyMap<string, { readonly result: SummaryResult; readonly at: number }>;

const RATIO_KEYS = ['firstPassYield', 'finalYield', 'retryRate'] as const;

/** Scales the ratio fields; `odd` when one is outside 0..1 after scaling. */
function scale(
  summary: StationSummary,
  yieldScale: 'ratio' | 'percent',
): { summary: StationSummary; odd: boolean } {
  const out: Record<string, number | undefined> = { ...summary };
  let odd = false;
  for (const key of RATIO_KEYS) {
    const v = summary[key];
    if (v === undefined) continue;
    const r = yieldScale === 'percent' ? v / 100 : v;
    if (r < 0 || r > 1) odd = true;
    out[key] = r;
  }
  return { summary: out as StationSummary, odd };
}

/** Waits for one request; 403/404 mean "no data for this set", not a failure. */
function send(answer: Promise<StationSummary | undefined>) {
  return answer.catch((err: unknown) => {
    if (err instanceof UpstreamError && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  });
}

/** Creates the summary job. */
export function createSummaryJob(ctx: CollectorContext): Job<PollContext, PollOutcome> {
  const { config, client, logger } = ctx;
  const settings = config.summary;
  const maxStalenessMs = STALENESS_INTERVALS * settings.intervalMs;
  let memory: SummaryMemory = new Map();
  let scaleWarned = false;
  return {
    async poll({ topology, now, signal }) {
      const plan = planSummaries(
        topology,
        {
          levels: settings.levels,
          windows: config.windows,
          maxUrlLength: config.upstream.maxUrlLength,
          urlLength: (r) => client.urlLength('station_summary', r),
        },
        now,
      );
      const answers = new Map<string, Promise<StationSummary | undefined>>();
      let partial = 0;
      for (const [key, planned] of plan.requests) {
        const { request, partial: isPartial } = narrow(planned, ctx.refused, now.getTime());
        if (isPartial) partial++;
        if (!request) continue;
        const raw = client.stationSummary({ ...request, signal });
        answers.set(key, send(learn(raw, request, ctx.refused, now.getTime())));
      }
      const next = new Map<string, { result: SummaryResult; at: number }>();
      let failures = 0;
      let firstError: unknown;
      let scaleMismatch = false;
      // Slots in plan order, so the exposition order does not depend on answer timing.
      const results = await Promise.all(
        plan.slots.map(async (slot): Promise<SummaryResult | undefined> => {
          try {
            const summary = await answers.get(slot.request);
            if (!summary) return undefined;
            const scaled = scale(summary, settings.yieldScale);
            scaleMismatch ||= scaled.odd;
            const result = { level: slot.level, labels: slot.labels, summary: scaled.summary };
            next.set(slot.key, { result, at: now.getTime() });
            return result;
          } catch (err) {
            firstError ??= err;
            const last = memory.get(slot.key);
            if (!last || now.getTime() - last.at > maxStalenessMs) return undefined;
            next.set(slot.key, last);
            return last.result;
          }
        }),
      );
      // A failed request fails every slot it answers; count each request once.
      for (const answer of answers.values())
        failures += await answer.then(
          () => 0,
          () => 1,
        );
      memory = next;
      report(logger, config, { skipped: plan.skipped, failures, requests: answers.size, firstError });
      if (scaleMismatch && !scaleWarned) {
        scaleWarned = true;
        logger.warn(
          { yield_scale: settings.yieldScale },
          'a yield or retry rate is outside 0..1 after scaling: check summary.yield_scale',
        );
      }
      return {
        families: summaryFamilies(
          settings.levels,
          results.filter((r) => r !== undefined),
        ),
        requests: answers.size,
        failures,
        diagnostics: {
          summaryPartial: partial,
          levelsSkipped: [...plan.skipped].map(([level, count]) => ({
            level,
            reason: 'url_too_long',
            count,
          })),
        },
      };
    },
  };
}

/** Logs the poll's skipped levels and failed requests. */
function report(
  logger: Logger,
  config: Config,
  poll: { skipped: ReadonlyMap<string, number>; failures: number; requests: number; firstError: unknown },
): void {
  for (const [level, count] of poll.skipped) {
    logger.warn(
      { level, count, maxUrlLength: config.upstream.maxUrlLength },
      'summary level skipped: its station_ids list would exceed max_url_length, and unique counts cannot be combined from parts',
    );
  }
  if (poll.failures > 0) {
    const err = poll.firstError instanceof Error ? poll.firstError.message : String(poll.firstError);
    logger.warn(
      { failures: poll.failures, requests: poll.requests, err },
      'summary poll had failed requests; their series keep the last good values',
    );
  }
}
