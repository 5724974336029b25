import { describe, expect, it } from 'vitest';
import { planRequests } from '../../src/planning/request-plan.ts';
import { type Cadence, phaseOf, sendOffsetMs } from '../../src/util/pace.ts';

const M = 60_000;

/**
 * Send times (epoch ms) of an entry, in `[fromMs, toMs)`, for intervals starting at
 * `startMs + c × intervalMs`. Built on {@link sendOffsetMs}, as the summary schedule is.
 */
function sendTimes(
  cadence: Cadence,
  span: { readonly startMs: number; readonly fromMs: number; readonly toMs: number },
): number[] {
  const { requests: n, intervalMs } = cadence;
  const { startMs, fromMs, toMs } = span;
  const times: number[] = [];
  if (n <= 0) return times;
  const first = Math.max(0, Math.floor((fromMs - startMs) / intervalMs));
  for (let c = first; startMs + c * intervalMs < toMs; c++) {
    for (let k = 0; k < n; k++) {
      const t = startMs + c * intervalMs + sendOffsetMs(k, cadence);
      if (t >= fromMs && t < toMs) times.push(t);
    }
  }
  return times;
}

describe('sendOffsetMs', () => {
  it('spreads n requests evenly over the interval', () => {
    const offsets = Array.from({ length: 4 }, (_, k) => sendOffsetMs(k, { requests: 4, intervalMs: M }));
    expect(offsets).toEqual([0, 15_000, 30_000, 45_000]);
    expect(sendOffsetMs(0, { requests: 4, intervalMs: M, phase: 0.5 })).toBe(7_500);
    expect(() => sendOffsetMs(4, { requests: 4, intervalMs: M })).toThrow(RangeError);
    // Always inside the interval, even with a phase.
    for (let k = 0; k < 1000; k++)
      expect(sendOffsetMs(k, { requests: 1000, intervalMs: M, phase: 0.99 })).toBeLessThan(M);
  });
});

describe('a paced plan', () => {
  it('stays within one request per entry of the planned rate in any 10 s over an hour (reference plant)', () => {
    const plan = planRequests({
      windowedCollector: 'summary',
      summaryRequests: { station: 1000, group: 10, line: 100, site: 3 },
      levels: ['station', 'group', 'line', 'site'],
      windows: [
        { name: '15m', lengthMs: 15 * M, fullLengthMs: 15 * M },
        { name: '1h', lengthMs: 60 * M, fullLengthMs: 60 * M },
        { name: '24h', lengthMs: 1440 * M, fullLengthMs: 1440 * M },
      ],
      records: [
        { collector: 'measurements', requestsPerPoll: 4, intervalMs: M },
        { collector: 'units', requestsPerPoll: 4, intervalMs: M },
      ],
      maxRequestsPerSecond: 10,
      baseIntervalMs: M,
    });
    const horizon = 60 * M;
    const times = plan.entries
      .flatMap((e, i) =>
        sendTimes(
          { requests: e.requests, intervalMs: e.refreshMs, phase: phaseOf(i, plan.entries.length) },
          { startMs: 0, fromMs: 0, toMs: horizon },
        ),
      )
      .sort((a, b) => a - b);
    // Every planned request of the hour is sent: about requests/min × 60.
    expect(Math.abs(times.length - plan.requestsPerMinute * 60)).toBeLessThan(plan.entries.length * 2);
    let most = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= 10_000) start++;
      most = Math.max(most, end - start + 1);
    }
    // Each entry sends at most floor(rate × 10 s) + 1 requests in any 10 s; the shared limiter
    // (upstream/limiter.ts) then enforces the hard ceiling of 100 on what little is above it.
    const bound = plan.entries.reduce((s, e) => s + Math.floor((e.requests * 10_000) / e.refreshMs) + 1, 0);
    expect(most).toBeLessThanOrEqual(bound);
    expect(most).toBeLessThanOrEqual(Math.ceil((plan.requestsPerMinute / 6) * 1.1));
  });

  it('gives the send times of later intervals too', () => {
    expect(
      sendTimes({ requests: 2, intervalMs: M, phase: 0 }, { startMs: 1_000, fromMs: 0, toMs: 3 * M }),
    ).toEqual([1_000, 31_000, 61_000, 91_000, 121_000, 151_000]);
    expect(
      sendTimes({ requests: 2, intervalMs: M, phase: 0 }, { startMs: 0, fromMs: 90_000, toMs: 150_000 }),
    ).toEqual([90_000, 120_000]);
    expect(sendTimes({ requests: 0, intervalMs: M, phase: 0 }, { startMs: 0, fromMs: 0, toMs: M })).toEqual(
      [],
    );
  });
});
