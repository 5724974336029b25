/**
 * The summary collector's job: send the summary requests that are due under the request plan
 * (each (window, level) on its own refresh, spread over the polls), skip those whose stations were
 * idle, keep every other entity's last answer, and turn the answers into gauges.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { CollectorContext, Job, PollContext, PollOutcome, RefreshAchieved } from '../collector.ts';
import { coverageFamilies, type SummaryResult, summaryFamilies } from './families.ts';
import { quietSince, sameSummary, VERIFY_EVERY } from './idle.ts';
import { learn, narrow } from './narrow.ts';
import { entitiesOf, planSummaries, type SummaryRequest, type SummarySlot } from './plan.ts';
import { createScaler, type DropReason } from './scale.ts';
import { isDue, scheduleKey, summarySchedule } from './schedule.ts';
import { summaryScope } from './scope.ts';

/** A failed entity keeps its last good answer for this many of its refreshes. */
const STALENESS_INTERVALS = 5;

/** Requests built and queued between two turns of the event loop. */
const REQUESTS_PER_TURN = 250;

/** Waits for one request; 403/404 mean "no data for this set", not a failure. */
function send(answer: Promise<StationSummary | undefined>) {
  return answer.catch((err: unknown) => {
    if (err instanceof UpstreamError && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  });
}

/** A slot's last answer, with when it was last known to be current and the bounds it was asked for. */
interface Remembered {
  /** Undefined when the upstream had no data for the set (403/404). */
  readonly result: SummaryResult | undefined;
  /** When the answer was last received or confirmed (idle skip), epoch ms. */
  readonly at: number;
  /** The `at` before that, for the achieved refresh. */
  readonly prevAt?: number;
  /** Window bounds of the last real answer, epoch ms: idle checks measure from them. */
  readonly from: number;
  readonly to: number;
}

/** Creates the summary job. */
export function createSummaryJob(ctx: CollectorContext): Job<PollContext, PollOutcome> {
  const { config, client, logger, activity } = ctx;
  const settings = config.summary;
  const pairs = config.windows.flatMap((w) => settings.levels.map((level) => ({ window: w.name, level })));
  // Idle skipping needs the units collector's records; without them nothing is skipped.
  const idle = settings.skipIdle && config.units.enabled ? activity : undefined;
  let memory = new Map<string, Remembered>();
  let pollNumber = 0;
  let skippable = 0;
  const scaler = createScaler(settings.yieldScale, logger);
  return {
    async poll({ topology: discovered, now, signal, plan }) {
      const t = now.getTime();
      const topology = summaryScope(discovered, settings.aggregateOver);
      const all = planSummaries(
        topology,
        {
          levels: settings.levels,
          windows: config.windows,
          maxUrlLength: config.upstream.maxUrlLength,
          urlLength: (r) => client.urlLength('station_summary', r),
        },
        now,
      );
      // Planning a plant's thousands of requests and deciding which are due are two long loops.
      await ctx.turns.yieldToLoop();
      const schedule = summarySchedule(plan, settings.intervalMs, pairs);
      const scheduleOf = (slot: SummarySlot) => schedule.get(scheduleKey(slot.window, slot.level));
      // Slots due now, by request: never answered, or in this poll's share of their refresh.
      const due = new Map<string, SummarySlot[]>();
      for (const slot of all.slots) {
        const s = scheduleOf(slot);
        if (s === undefined) continue;
        if (memory.has(slot.key) && !isDue(slot, s, pollNumber)) continue;
        const list = due.get(slot.request) ?? [];
        list.push(slot);
        due.set(slot.request, list);
      }
      const next = new Map<string, Remembered>();
      const counts = { skipped: 0, verified: 0, disagreements: 0 };
      const verify = new Set<string>();
      const answers = new Map<string, Promise<StationSummary | undefined>>();
      // Stations the upstream refuses are left out of aggregate requests (counted as partial).
      let partial = 0;
      const sends: Array<{ key: string; request: SummaryRequest }> = [];
      for (const [key, slots] of due) {
        const planned = all.requests.get(key);
        if (planned === undefined) continue;
        const { request, partial: isPartial } = narrow(planned, ctx.refused, t);
        if (isPartial) partial++;
        if (!request) continue;
        if (idle !== undefined && slots.every((slot) => quietSince(idle, memory.get(slot.key), request))) {
          if (skippable++ % VERIFY_EVERY !== 0) {
            counts.skipped++;
            // The kept answer is confirmed current: fresh, not failed, with the bounds it was asked for.
            for (const slot of slots) {
              const last = memory.get(slot.key);
              if (last) next.set(slot.key, { ...last, at: t, prevAt: last.at });
            }
            continue;
          }
          verify.add(key);
          counts.verified++;
        }
        sends.push({ key, request });
      }
      // A first poll sends thousands of requests; building them is done a slice per turn.
      await ctx.turns.forEachSlice(sends, REQUESTS_PER_TURN, (slice) => {
        for (const { key, request } of slice) {
          const answer = send(learn(client.stationSummary({ ...request, signal }), request, ctx.refused, t));
          // Awaited below; until then a failure must not count as an unhandled rejection.
          answer.catch(() => {});
          answers.set(key, answer);
        }
      });
      let failures = 0;
      let firstError: unknown;
      const dropped = new Map<DropReason, number>();
      const disagreed = new Set<string>();
      // Slots in plan order, so the exposition order does not depend on answer timing.
      const results = await Promise.all(
        all.slots.map(async (slot): Promise<SummaryResult | undefined> => {
          const s = scheduleOf(slot);
          if (s === undefined) return undefined;
          const last = memory.get(slot.key);
          const kept = next.get(slot.key);
          if (kept) return kept.result;
          const answer = answers.get(slot.request);
          const maxStalenessMs = STALENESS_INTERVALS * s.refreshMs;
          const keepLast = () => {
            if (!last || t - last.at > maxStalenessMs) return undefined;
            next.set(slot.key, last);
            return last.result;
          };
          // Not due: the last answer is current until the slot's next turn.
          if (answer === undefined) return keepLast();
          try {
            const summary = await answer;
            const request = all.requests.get(slot.request);
            const bounds = { from: request?.from.getTime() ?? t, to: request?.to.getTime() ?? t };
            let result: SummaryResult | undefined;
            if (summary) {
              const scaled = scaler.scale(summary);
              for (const [reason, n] of scaled.dropped) dropped.set(reason, (dropped.get(reason) ?? 0) + n);
              result = { level: slot.level, labels: slot.labels, summary: scaled.summary };
            }
            if (verify.has(slot.request) && !sameSummary(last?.result?.summary, result?.summary)) {
              disagreed.add(slot.request);
            }
            next.set(slot.key, { result, at: t, prevAt: last?.at, ...bounds });
            return result;
          } catch (err) {
            firstError ??= err;
            return keepLast();
          }
        }),
      );
      // A failed request fails every slot it answers; count each request once.
      for (const answer of answers.values())
        failures += await answer.then(
          () => 0,
          () => 1,
        );
      counts.disagreements = disagreed.size;
      memory = next;
      pollNumber++;
      report(logger, config, { skipped: all.skipped, failures, requests: answers.size, firstError });
      if (counts.disagreements > 0) {
        logger.warn(
          { disagreements: counts.disagreements, verified: counts.verified },
          'a summary skipped as idle had changed: a unit record reached the upstream later than the units collector saw it',
        );
      }
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
          recordsSkipped: [...dropped].map(([reason, count]) => ({
            endpoint: 'station_summary',
            reason,
            count,
          })),
          levelsSkipped: [...all.skipped].map(([level, count]) => ({
            level,
            reason: 'url_too_long',
            count,
          })),
          refresh: achievedRefresh(memory, all.slots, scheduleOf),
          ...(idle === undefined ? {} : { idle: counts }),
        },
      };
    },
  };
}

/** Per (window, level): the longest time between two answers of one of its entities, seconds. */
function achievedRefresh(
  memory: ReadonlyMap<string, Remembered>,
  slots: readonly SummarySlot[],
  scheduleOf: (slot: SummarySlot) => unknown,
): RefreshAchieved[] {
  const longest = new Map<string, { window: string; level: string; ms: number }>();
  for (const slot of slots) {
    const m = memory.get(slot.key);
    if (m?.prevAt === undefined || scheduleOf(slot) === undefined) continue;
    const key = scheduleKey(slot.window, slot.level);
    const row = longest.get(key) ?? { window: slot.window, level: slot.level, ms: 0 };
    row.ms = Math.max(row.ms, m.at - m.prevAt);
    longest.set(key, row);
  }
  return [...longest.values()].map((r) => ({ window: r.window, level: r.level, seconds: r.ms / 1000 }));
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
