/**
 * The summary job: sends the requests due under the request plan, skips those whose stations were
 * idle, keeps every other entity's last answer, and turns the answers into gauges.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { UnitActivity } from '../activity.ts';
import type {
  Job,
  Needs,
  PollContext,
  PollOutcome,
  RefreshAchieved,
  SummaryWindowProgress,
} from '../collector.ts';
import { coverageFamilies, type SummaryResult, summaryFamilies } from './families.ts';
import { firstPollOrder, type SummaryPair, WarmUp, windowProgress } from './first-poll.ts';
import { quietSince, sameSummary, VERIFY_EVERY } from './idle.ts';
import { learn, narrow } from './narrow.ts';
import { entitiesOf, planSummaries, type SummaryRequest, type SummarySlot } from './plan.ts';
import { type DropReason, Scaler } from './scale.ts';
import { isDue, scheduleKey, summarySchedule } from './schedule.ts';
import { summaryScope } from './scope.ts';

/** A failed entity keeps its last good answer for this many of its refreshes. */
const STALENESS_INTERVALS = 5;

/** Requests built and queued between two yields to the event loop. */
const REQUESTS_PER_SLICE = 250;

/** Waits for one request; 403/404 mean "no data for this set", not a failure. */
function send(answer: Promise<StationSummary | undefined>) {
  return answer.catch((err: unknown) => {
    if (err instanceof UpstreamError && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  });
}

/**
 * A slot's last answer. No labels: it is exported under the current topology's, so that a renamed
 * site shows its new name on the next poll even while its stations are idle.
 */
interface Remembered {
  /** Undefined when the upstream had no data for the set (403/404). */
  readonly summary: StationSummary | undefined;
  /** Last received or confirmed (idle skip), epoch ms. */
  readonly at: number;
  readonly prevAt?: number;
  /** Window bounds of the last real answer: idle checks measure from them. */
  readonly from: number;
  readonly to: number;
}

/** What the summary job uses of the collector context. */
export type SummaryNeeds = Needs<
  'config' | 'client' | 'logger' | 'yielder' | 'refused' | 'activity' | 'offerSummaryWindows'
>;

/** Keeps each (entity, window) slot's last answer, and the first polls' warm-up and idle-skip state. */
export class SummaryJob implements Job<PollContext, PollOutcome> {
  readonly #ctx: SummaryNeeds;
  readonly #pairs: readonly SummaryPair[];
  /** Set when idle skipping is on: it needs the units collector's records. */
  readonly #idle: UnitActivity | undefined;
  readonly #scaler: Scaler;
  readonly #warmUp: WarmUp;
  #memory = new Map<string, Remembered>();
  #pollNumber = 0;
  #skippable = 0;
  #progress: SummaryWindowProgress[] = [];

  constructor(ctx: SummaryNeeds) {
    const { config, logger } = ctx;
    const settings = config.summary;
    this.#ctx = ctx;
    this.#pairs = config.windows.flatMap((w) => settings.levels.map((level) => ({ window: w.name, level })));
    this.#idle = settings.skipIdle && config.units.enabled ? ctx.activity : undefined;
    this.#scaler = new Scaler(settings.yieldScale, logger);
    // A first poll starts at most one summary interval's worth of requests at the ceiling.
    this.#warmUp = new WarmUp(
      Math.max(1, Math.floor((config.upstream.maxRequestsPerSecond * settings.intervalMs) / 1000)),
    );
    ctx.offerSummaryWindows(() => this.#progress);
  }

  /**
   * Phase 2: the slots due now, by request, in first-poll order (first-poll.ts): never answered
   * (once their pair is admitted), or in this poll's share of their refresh.
   */
  #dueSlots(poll: PollState): Map<string, SummarySlot[]> {
    const memory = this.#memory;
    const rank = new Map(poll.order.map((p, i) => [scheduleKey(p), i]));
    const slots = poll.all.slots
      .filter((slot) => poll.scheduleOf(slot) !== undefined)
      .sort((a, b) => (rank.get(scheduleKey(a)) ?? 0) - (rank.get(scheduleKey(b)) ?? 0));
    const fresh = new Map<string, number>();
    for (const slot of slots)
      if (!memory.has(slot.key)) fresh.set(scheduleKey(slot), (fresh.get(scheduleKey(slot)) ?? 0) + 1);
    const admitted = this.#warmUp.admit(poll.order, (p) => fresh.get(scheduleKey(p)) ?? 0);
    const due = new Map<string, SummarySlot[]>();
    for (const slot of slots) {
      const s = poll.scheduleOf(slot);
      if (s === undefined) continue;
      const known = memory.has(slot.key);
      if (known ? !isDue(slot, s, this.#pollNumber) : !admitted.has(scheduleKey(slot))) {
        poll.deferred++;
        continue;
      }
      const list = due.get(slot.request) ?? [];
      list.push(slot);
      due.set(slot.request, list);
    }
    return due;
  }

  /** Phase 3: what to send; refused stations are left out of aggregate requests (counted as partial). */
  #chooseSends(poll: PollState, due: Map<string, SummarySlot[]>) {
    const sends: Array<{ key: string; request: SummaryRequest }> = [];
    for (const [key, slots] of due) {
      const planned = poll.all.requests.get(key);
      if (planned === undefined) continue;
      const { request, partial } = narrow(planned, this.#ctx.refused, poll.t);
      if (partial) poll.partial++;
      if (request && !this.#skippedAsIdle(poll, { key, slots, request })) sends.push({ key, request });
    }
    return sends;
  }

  /**
   * A request whose stations were idle since their kept answers is skipped, those answers confirmed
   * current; one in {@link VERIFY_EVERY} is sent anyway, to verify it.
   */
  #skippedAsIdle(
    poll: PollState,
    { key, slots, request }: { key: string; slots: readonly SummarySlot[]; request: SummaryRequest },
  ): boolean {
    const memory = this.#memory;
    const idle = this.#idle;
    if (idle === undefined || !slots.every((slot) => quietSince(idle, memory.get(slot.key), request)))
      return false;
    if (this.#skippable++ % VERIFY_EVERY === 0) {
      poll.verify.add(key);
      poll.counts.verified++;
      return false;
    }
    poll.counts.skipped++;
    for (const slot of slots) {
      const last = memory.get(slot.key);
      if (last) poll.next.set(slot.key, { ...last, at: poll.t, prevAt: last.at });
    }
    return true;
  }

  /** Phase 4: sends them, a slice between yields to the event loop (a first poll sends thousands). */
  async #sendAll(
    poll: PollState,
    sends: Array<{ key: string; request: SummaryRequest }>,
    signal?: AbortSignal,
  ) {
    const { client, refused, yielder } = this.#ctx;
    const answers = new Map<string, Promise<StationSummary | undefined>>();
    const refusals = { refused, now: poll.t };
    await yielder.forEachSlice(sends, REQUESTS_PER_SLICE, (slice) => {
      for (const { key, request } of slice) {
        const answer = send(learn(client.stationSummary({ ...request, signal }), request, refusals));
        // Awaited below; until then a failure must not count as an unhandled rejection.
        answer.catch(() => {});
        answers.set(key, answer);
      }
    });
    return answers;
  }

  /**
   * Phase 5: a slot's result (collected in plan order: the exposition order must not depend on
   * answer timing); after a failure, the last answer while it is not stale.
   */
  async #slotResult(
    poll: PollState,
    slot: SummarySlot,
    answers: Map<string, Promise<StationSummary | undefined>>,
  ): Promise<SummaryResult | undefined> {
    const { t, all, next } = poll;
    const s = poll.scheduleOf(slot);
    if (s === undefined) return undefined;
    const last = this.#memory.get(slot.key);
    const kept = next.get(slot.key);
    if (kept) return resultOf(slot, kept.summary);
    const answer = answers.get(slot.request);
    const maxStalenessMs = STALENESS_INTERVALS * s.refreshMs;
    const keepLast = () => {
      if (!last || t - last.at > maxStalenessMs) return undefined;
      next.set(slot.key, last);
      return resultOf(slot, last.summary);
    };
    // Not due: the last answer is current until the slot is next due.
    if (answer === undefined) return keepLast();
    try {
      const summary = await answer;
      const request = all.requests.get(slot.request);
      const bounds = { from: request?.from.getTime() ?? t, to: request?.to.getTime() ?? t };
      let scaledSummary: StationSummary | undefined;
      if (summary) {
        const scaled = this.#scaler.scale(summary);
        for (const [reason, n] of scaled.dropped)
          poll.dropped.set(reason, (poll.dropped.get(reason) ?? 0) + n);
        scaledSummary = scaled.summary;
      }
      if (poll.verify.has(slot.request) && !sameSummary(last?.summary, scaledSummary)) {
        poll.disagreed.add(slot.request);
      }
      next.set(slot.key, { summary: scaledSummary, at: t, prevAt: last?.at, ...bounds });
      return resultOf(slot, scaledSummary);
    } catch (err) {
      poll.firstError ??= err;
      return keepLast();
    }
  }

  /** Phase 6: the families and what the poll did. */
  async #outcome(
    poll: PollState,
    results: readonly SummaryResult[],
    sent: { readonly requests: number; readonly failures: number },
  ): Promise<PollOutcome> {
    const levels = this.#ctx.config.summary.levels;
    const refused = this.#ctx.refused;
    const families = await summaryFamilies(levels, results, this.#ctx.yielder);
    // The refresh each schedule achieved is another pass over every slot.
    await this.#ctx.yielder.yieldToLoop();
    return {
      families: [
        ...families,
        ...coverageFamilies(
          levels,
          (level) => entitiesOf(poll.topology, level),
          (id) => !refused.has(id),
        ),
      ],
      requests: sent.requests,
      failures: sent.failures,
      // Idle-skipped requests are due parts confirmed current by the units collector's records.
      confirmed: poll.counts.skipped,
      deferred: poll.deferred,
      diagnostics: {
        summaryPartial: poll.partial,
        recordsSkipped: [...poll.dropped].map(([reason, count]) => ({
          endpoint: 'station_summary',
          reason,
          count,
        })),
        levelsSkipped: [...poll.all.skipped].map(([level, count]) => ({
          level,
          reason: 'url_too_long',
          count,
        })),
        refresh: achievedRefresh(this.#memory, poll.all.slots, poll.scheduleOf),
        ...(this.#idle === undefined ? {} : { idle: poll.counts }),
      },
    };
  }

  async poll({ topology: discovered, now, signal, plan }: PollContext): Promise<PollOutcome> {
    const { logger, config } = this.#ctx;
    const poll = await startPoll(this.#ctx, this.#pairs, { discovered, now, plan });
    const sends = this.#chooseSends(poll, this.#dueSlots(poll));
    const answers = await this.#sendAll(poll, sends, signal);
    const all = await Promise.all(poll.all.slots.map((slot) => this.#slotResult(poll, slot, answers)));
    const results = all.filter((r) => r !== undefined);
    const failures = await countFailures(answers.values());
    poll.counts.disagreements = poll.disagreed.size;
    // Each window's progress is a pass over every slot: not in the same block as the answers' last.
    await this.#ctx.yielder.yieldToLoop();
    this.#memory = poll.next;
    this.#pollNumber++;
    this.#progress = progressOf(poll, this.#memory);
    report(logger, config, {
      skipped: poll.all.skipped,
      ...failures,
      requests: answers.size,
      firstError: poll.firstError,
    });
    if (poll.counts.disagreements > 0) {
      logger.warn(
        { disagreements: poll.counts.disagreements, verified: poll.counts.verified },
        'a summary skipped as idle had changed: a unit record reached the upstream later than the units collector saw it',
      );
    }
    return this.#outcome(poll, results, { requests: answers.size, failures: failures.failures });
  }
}

/** Each window's progress after a poll: a pair is answered when every entity of it has an answer. */
function progressOf(poll: PollState, memory: ReadonlyMap<string, Remembered>): SummaryWindowProgress[] {
  const planned = new Set<string>();
  const unanswered = new Set<string>();
  for (const slot of poll.all.slots) {
    if (poll.scheduleOf(slot) === undefined) continue;
    const key = scheduleKey(slot);
    planned.add(key);
    if (!memory.has(slot.key)) unanswered.add(key);
  }
  return windowProgress(poll.order, {
    planned: (p) => planned.has(scheduleKey(p)),
    answered: (p) => !unanswered.has(scheduleKey(p)),
  });
}

/** A slot's exported result: the answer under the slot's labels, from this poll's topology. */
function resultOf(slot: SummarySlot, summary: StationSummary | undefined): SummaryResult | undefined {
  return summary && { level: slot.level, labels: slot.labels, summary };
}

/** Phase 1: every (entity, window) slot, the requests they need and their schedule; the poll's state. */
async function startPoll(
  ctx: SummaryNeeds,
  pairs: readonly SummaryPair[],
  { discovered, now, plan }: { discovered: PollContext['topology']; now: Date; plan: PollContext['plan'] },
) {
  const { config, client, yielder } = ctx;
  const settings = config.summary;
  const topology = summaryScope(discovered, settings.aggregateOver);
  const all = await planSummaries(
    topology,
    {
      levels: settings.levels,
      windows: config.windows,
      maxUrlLength: config.upstream.maxUrlLength,
      urlLength: (r) => client.urlLength('station_summary', r),
      yielder,
    },
    now,
  );
  // Planning a plant's thousands of requests and deciding which are due are two long loops.
  await yielder.yieldToLoop();
  const schedule = summarySchedule(plan, settings.intervalMs, pairs);
  return {
    topology,
    all,
    scheduleOf: (slot: SummarySlot) => schedule.get(scheduleKey(slot)),
    order: firstPollOrder(config.windows, settings.levels, now),
    t: now.getTime(),
    /** Each slot's remembered answer after this poll. */
    next: new Map<string, Remembered>(),
    counts: { skipped: 0, verified: 0, disagreements: 0 },
    /** Requests sent to verify that idle stations' summaries are unchanged. */
    verify: new Set<string>(),
    partial: 0,
    /** Slots served from an earlier answer because they are not due in this poll. */
    deferred: 0,
    dropped: new Map<DropReason, number>(),
    disagreed: new Set<string>(),
    firstError: undefined as unknown,
  };
}

type PollState = Awaited<ReturnType<typeof startPoll>>;

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
    const key = scheduleKey(slot);
    const row = longest.get(key) ?? { window: slot.window, level: slot.level, ms: 0 };
    row.ms = Math.max(row.ms, m.at - m.prevAt);
    longest.set(key, row);
  }
  return [...longest.values()].map((r) => ({ window: r.window, level: r.level, seconds: r.ms / 1000 }));
}

/**
 * Failed requests, each counted once however many slots it answers, and of them those never
 * sent (circuit open): the same unit as the requests, so that the counts add up.
 */
async function countFailures(answers: Iterable<Promise<unknown>>) {
  const counts = { failures: 0, notSent: 0 };
  for (const answer of answers) {
    await answer.catch((err: unknown) => {
      counts.failures++;
      if (err instanceof UpstreamError && err.reason === 'circuit_open') counts.notSent++;
    });
  }
  return counts;
}

function report(
  logger: Logger,
  config: Config,
  poll: Awaited<ReturnType<typeof countFailures>> & {
    readonly skipped: ReadonlyMap<string, number>;
    readonly requests: number;
    readonly firstError: unknown;
  },
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
      { requests: poll.requests, failures: poll.failures, not_sent: poll.notSent, err },
      'summary poll had failed requests; their series keep the last good values',
    );
  }
}
