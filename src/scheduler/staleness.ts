/**
 * The scheduler's view of each collector's freshness: what a poll brought (classified from its
 * outcome alone), when data last arrived, and which collectors' series are dropped for being
 * older than their max_staleness.
 */
import type { PollOutcome } from '../collectors/collector.ts';

/** What one poll brought, as the scheduler classifies it. */
export interface PollClass {
  /**
   * The poll asked for nothing: every part was deferred by the request plan. It brought no data
   * and no failure: the collector's success and data age stay as they were, and for the
   * staleness bound it counts as its last poll that asked for something did.
   */
  readonly idle: boolean;
  /** Every due part got new data: the data age counts from this poll. */
  readonly fresh: boolean;
  /** At least one due part got new data (or there was nothing to ask at all). */
  readonly reached: boolean;
}

/**
 * Evaluates a poll from its outcome; `undefined` is a poll that threw. A part is due when it was
 * asked for (a request, sent or not) or confirmed current without one (`confirmed`); it got new
 * data when its request was answered. A poll that neither asked nor deferred anything has
 * nothing to serve and is trivially fresh (a replica whose shard holds no station).
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
  /**
   * Whether a poll keeps the collector from being dropped as stale: it brought new data, or it
   * asked for nothing (its parts were deferred by the plan, not failing) after a poll that did.
   * An idle poll after a failing one carries the failure, so it can never serve stale data again.
   */
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
    const at = this.reachedAt.get(name);
    return at !== undefined && !this.dropped.has(name) && now - at > maxMs;
  }
  /** Data was published once and is older than `maxMs`. */
  pastBound(name: string, now: number, maxMs: number | undefined): boolean {
    const at = this.reachedAt.get(name);
    return maxMs !== undefined && at !== undefined && now - at > maxMs;
  }
  /** Whether the collector's series are dropped now. */
  isDropped(name: string): boolean {
    return this.dropped.has(name);
  }
  markDropped(name: string): void {
    this.dropped.add(name);
  }
  /**
   * The success of a poll: an idle one repeats the last poll that asked for something (true
   * before any), so that a collector failing in an outage does not flash back to success
   * between its due polls.
   */
  success(name: string, poll: { readonly verdict: PollClass; readonly inTime: boolean }): boolean {
    const ok = poll.verdict.idle ? (this.lastOk.get(name) ?? true) : poll.verdict.fresh;
    if (!poll.verdict.idle) this.lastOk.set(name, ok);
    return ok && poll.inTime;
  }
}
