/** Each collector's freshness: what a poll brought, when data last arrived, and which are dropped. */
import type { PollOutcome } from '../collectors/collector.ts';

/** What one poll brought, as the scheduler classifies it. */
export interface PollClass {
  /** The plan deferred every part: success, data age and staleness stay as the last real poll left them. */
  readonly idle: boolean;
  /** Every due part got new data: the data age counts from this poll. */
  readonly fresh: boolean;
  /** At least one due part got new data (or there was nothing to ask at all). */
  readonly reached: boolean;
}

/**
 * Evaluates a poll from its outcome (`undefined`: it threw). A part is due when asked for or
 * `confirmed` current; a poll with nothing due or deferred is fresh (a shard without stations).
 */
export function classifyPoll(outcome: PollOutcome | undefined): PollClass {
  if (outcome === undefined) return { idle: false, fresh: false, reached: false };
  const confirmed = outcome.confirmed ?? 0;
  const due = outcome.requests + confirmed;
  if (due === 0) {
    const idle = (outcome.deferred ?? 0) > 0;
    return { idle, fresh: !idle, reached: !idle };
  }
  const answered = outcome.requests - outcome.failures + confirmed;
  return { idle: false, fresh: outcome.failures === 0, reached: answered > 0 };
}

/** When each collector's poll started and its data last arrived, and which parts are dropped. */
export class Staleness {
  private readonly running = new Map<string, number>();
  /** When a poll of the collector last brought new data (any due part answered). */
  private readonly reachedAt = new Map<string, number>();
  /** Whether the collector's last poll that asked for something succeeded. */
  private readonly lastOk = new Map<string, boolean>();
  /** Whether the collector's last poll that asked for something brought new data. */
  private readonly lastReached = new Map<string, boolean>();
  private readonly dropped = new Set<string>();

  start(name: string, now: number): void {
    this.running.set(name, now);
  }
  /** Whether a poll keeps the collector from going stale: new data, or idle after a poll that had some. */
  reached(name: string, verdict: PollClass): boolean {
    return verdict.idle ? (this.lastReached.get(name) ?? true) : verdict.reached;
  }
  /** A poll ended at `now`; returns whether it kept the collector from being stale. */
  finish(name: string, poll: { readonly verdict: PollClass; readonly now: number }): boolean {
    this.running.delete(name);
    const reached = this.reached(name, poll.verdict);
    if (!poll.verdict.idle) this.lastReached.set(name, reached);
    if (!reached) return false;
    this.reachedAt.set(name, poll.now);
    this.dropped.delete(name);
    return true;
  }
  runningSince(name: string): number | undefined {
    return this.running.get(name);
  }
  /** Data was published once, is older than `maxMs`, and is still in the cache. */
  isStale(name: string, now: number, maxMs: number): boolean {
    return !this.dropped.has(name) && this.pastBound(name, now, maxMs);
  }
  /** Data was published once and is older than `maxMs`. */
  pastBound(name: string, now: number, maxMs: number | undefined): boolean {
    const at = this.reachedAt.get(name);
    return maxMs !== undefined && at !== undefined && now - at > maxMs;
  }
  markDropped(name: string): void {
    this.dropped.add(name);
  }
  /** A poll's success: an idle one repeats the last real poll's, so an outage never flashes success. */
  success(name: string, poll: { readonly verdict: PollClass; readonly inTime: boolean }): boolean {
    const ok = poll.verdict.idle ? (this.lastOk.get(name) ?? true) : poll.verdict.fresh;
    if (!poll.verdict.idle) this.lastOk.set(name, ok);
    return ok && poll.inTime;
  }
}
