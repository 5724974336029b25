import { describe, expect, it } from 'vitest';
import { RereadSweep, type SweepRange, sweepSpans } from '../../src/records/sweep.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const SPAN = 30 * MIN;
const T0 = 1_000 * HOUR;

/** Polls every `stepMs` from T0 for `polls` polls over a window of `windowMs`; every range is read. */
function drive(opts: {
  windowMs: number;
  intervalMs: number;
  stepMs: number;
  polls: number;
  overlapMs?: number;
}) {
  const sweep = new RereadSweep(opts.intervalMs, SPAN);
  const reads: Array<SweepRange & { at: number }> = [];
  for (let i = 0; i < opts.polls; i++) {
    const now = T0 + i * opts.stepMs;
    const retainFrom = now - opts.windowMs;
    // The incremental reads begin at the previous poll less the overlap.
    const end = i === 0 ? Number.NEGATIVE_INFINITY : now - opts.stepMs - (opts.overlapMs ?? 5 * MIN);
    const range = sweep.next(now, retainFrom, end);
    if (range) {
      reads.push({ ...range, at: now });
      sweep.done(range, now, retainFrom);
    }
  }
  return reads;
}

/** A small deterministic PRNG (mulberry32), so that the property test is reproducible. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('re-read sweep', () => {
  it('reads nothing on the first poll, which reads the whole window anyway', () => {
    const sweep = new RereadSweep(HOUR, SPAN);
    expect(sweep.next(T0, T0 - 24 * HOUR, Number.NEGATIVE_INFINITY)).toBeUndefined();
  });

  it('spreads one sweep of a 24h window over an hour of 1-minute polls: at most one span per poll', () => {
    const reads = drive({ windowMs: 24 * HOUR, intervalMs: HOUR, stepMs: MIN, polls: 3 * 60 + 1 });
    // Every read is whole spans, except the last range of a sweep.
    for (const r of reads) {
      const spans = Math.ceil((r.to - r.from) / SPAN);
      expect(spans).toBeLessThanOrEqual(r.last ? 2 : 1);
      if (!r.last) expect((r.to - r.from) % SPAN).toBe(0);
    }
    // A poll reads at most one range; three sweeps end in three hours.
    expect(new Set(reads.map((r) => r.at)).size).toBe(reads.length);
    expect(reads.filter((r) => r.last).map((r) => r.at)).toEqual([T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);
    // What one sweep costs per station batch stays within the planner's count.
    const second = reads.filter((r) => r.at > T0 + HOUR && r.at <= T0 + 2 * HOUR);
    const spans = second.reduce((n, r) => n + Math.ceil((r.to - r.from) / SPAN), 0);
    expect(spans).toBeLessThanOrEqual(sweepSpans(24 * HOUR, HOUR, SPAN));
    expect(spans).toBeGreaterThanOrEqual(48);
  });

  it('reads each retained instant once per sweep: ranges of a sweep join without gaps or overlaps', () => {
    const reads = drive({ windowMs: 24 * HOUR, intervalMs: HOUR, stepMs: MIN, polls: 2 * 60 + 1 });
    const second = reads.filter((r) => r.at > T0 + HOUR && r.at <= T0 + 2 * HOUR);
    for (let i = 1; i < second.length; i++) expect(second[i]!.from).toBe(second[i - 1]!.to);
    // It starts at the oldest time retained at its first read and ends where the incremental reads begin.
    expect(second[0]!.from).toBe(second[0]!.at - 24 * HOUR);
    expect(second.at(-1)!.to).toBe(T0 + 2 * HOUR - MIN - 5 * MIN);
  });

  it('finds every late record within one interval of its arrival while it is still retained', () => {
    const windowMs = 24 * HOUR;
    const reads = drive({ windowMs, intervalMs: HOUR, stepMs: MIN, polls: 30 * 60 });
    const random = prng(8);
    for (let k = 0; k < 2000; k++) {
      // Arrives between hour 2 and hour 27, created between 10 minutes and 23 hours earlier.
      const arrived = T0 + 2 * HOUR + Math.floor(random() * 25 * HOUR);
      const time = arrived - 10 * MIN - Math.floor(random() * 23 * HOUR);
      const found = reads.find((r) => r.at >= arrived && r.from <= time && time < r.to);
      // Still retained an interval after arrival: it must be found within that interval.
      if (time >= arrived + HOUR + MIN - windowMs) {
        expect(found, `record of ${time - T0} arriving at ${arrived - T0}`).toBeDefined();
        expect(found!.at - arrived).toBeLessThanOrEqual(HOUR + MIN);
      }
    }
  });

  it('reads a range again when it failed', () => {
    const sweep = new RereadSweep(HOUR, SPAN);
    const window = 24 * HOUR;
    sweep.next(T0, T0 - window, Number.NEGATIVE_INFINITY);
    const at = T0 + 5 * MIN;
    const first = sweep.next(at, at - window, at - 10 * MIN);
    expect(first).toBeDefined();
    // Not marked done: the next poll starts again at the oldest time still retained ...
    const again = sweep.next(at + MIN, at + MIN - window, at - 5 * MIN);
    expect(again?.from).toBe(at + MIN - window);
    // ... where, once done, it goes on from the end of the range read.
    sweep.done(again!, at + MIN, at + MIN - window);
    expect(sweep.next(at + 2 * MIN, at + 2 * MIN - window, at - 4 * MIN)?.from ?? again!.to).toBe(again!.to);
  });

  it('catches up after failed polls at most twice its even pace, then ends the sweep', () => {
    const sweep = new RereadSweep(HOUR, SPAN);
    const window = 24 * HOUR;
    const poll = (i: number) => {
      const now = T0 + i * MIN;
      return {
        now,
        range: sweep.next(now, now - window, i === 0 ? Number.NEGATIVE_INFINITY : now - 6 * MIN),
      };
    };
    poll(0);
    // Polls 1 to 40 fail: nothing is marked done.
    for (let i = 1; i <= 40; i++) poll(i);
    const reads: SweepRange[] = [];
    for (let i = 41; i <= 120; i++) {
      const { now, range } = poll(i);
      if (!range) continue;
      // Even pace: 25 minutes of the sliding window per 1-minute poll, so at most 2 spans.
      expect(range.to - range.from).toBeLessThanOrEqual(2 * SPAN);
      reads.push(range);
      sweep.done(range, now, now - window);
    }
    // The sweep still ends, later than the hour, and a new one starts after it.
    const lastAt = reads.findIndex((r) => r.last);
    expect(lastAt).toBeGreaterThan(0);
    for (let i = 1; i <= lastAt; i++) expect(reads[i]!.from).toBe(reads[i - 1]!.to);
  });

  it('reads everything left in one range when polls are further apart than the interval', () => {
    const reads = drive({ windowMs: 2 * HOUR, intervalMs: HOUR, stepMs: 90 * MIN, polls: 3 });
    expect(reads.map((r) => [r.from - T0, r.to - T0, r.last])).toEqual([
      [-30 * MIN, -5 * MIN, true],
      [60 * MIN, 85 * MIN, true],
    ]);
  });

  it('rejects a non-positive interval or span', () => {
    expect(() => new RereadSweep(0, SPAN)).toThrow(RangeError);
    expect(() => new RereadSweep(HOUR, 0)).toThrow(RangeError);
  });
});
