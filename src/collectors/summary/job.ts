/**
 * The summary collector's job: send the planned summary requests, keep each entity's last
 * good answer for a while, and turn the answers into gauges.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { CollectorContext, Job, PollContext, PollOutcome } from '../collector.ts';
import { coverageFamilies, type SummaryResult, summaryFamilies } from './families.ts';
import { learn, narrow } from './narrow.ts';
import { entitiesOf, planSummaries } from './plan.ts';
import { createScaler, type DropReason } from './scale.ts';
import { summaryScope } from './scope.ts';

/** A failed entity keeps its last good answer for this many intervals. */
const STALENESS_INTERVALS = 5;

/** Last good answers by slot key, carried from poll to poll. */
type SummaryMemory = ReadonlyMap<string, { readonly result: SummaryResult; readonly at: number }>;

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
  const scaler = createScaler(settings.yieldScale, logger);
  return {
    async poll({ topology: discovered, now, signal }) {
      const topology = summaryScope(discovered, settings.aggregateOver);
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
      // Stations the upstream refuses are left out of aggregate requests (counted as partial).
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
      const dropped = new Map<DropReason, number>();
      // Slots in plan order, so the exposition order does not depend on answer timing.
      const results = await Promise.all(
        plan.slots.map(async (slot): Promise<SummaryResult | undefined> => {
          try {
            const summary = await answers.get(slot.request);
            if (!summary) return undefined;
            const scaled = scaler.scale(summary);
            for (const [reason, n] of scaled.dropped) dropped.set(reason, (dropped.get(reason) ?? 0) + n);
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
      return {
        families: [
          ...summaryFamilies(
            settings.levels,
            results.filter((r) => r !== undefined),
          ),
          ...coverageFamilies(
            settings.levels,
            (level) => entitiesOf(topology, level),
            (id) => ctx.refused?.has(id) !== true,
          ),
        ],
        requests: answers.size,
        failures,
        diagnostics: {
          summaryPartial: partial,
          levelsSkipped: [...plan.skipped].map(([level, count]) => ({
            level,
            reason: 'url_too_long',
            count,
          })),
          recordsSkipped: [...dropped].map(([reason, count]) => ({
            endpoint: 'station_summary',
            reason,
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
