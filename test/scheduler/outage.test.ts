/**
 * An upstream outage longer than max_staleness, through the real summary and units jobs over a
 * fake upstream whose requests all fail (5xx, then circuit open: nothing sent). The staleness
 * signals must tell the truth all along: success 0, data age growing without a reset (a summary
 * poll with nothing due brings no data), stale 1 from the bound until a poll brings new data,
 * and requests and failures counted in the same unit.
 */
import { describe, expect, it } from 'vitest';
import { summaryCollector } from '../../src/collectors/summary/index.ts';
import { unitsCollector } from '../../src/collectors/units/index.ts';
import type { RequestPlan } from '../../src/planning/request-plan.ts';
import type { Endpoint } from '../../src/upstream/endpoints.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';
import { schedulerHarness } from '../helpers/scheduler-harness.ts';

const INTERVAL_MS = 10_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
const COLLECTORS = ['summary', 'units'] as const;

/** The summary's (window, level)s of `levels` refreshed every `polls` polls: some polls have nothing due. */
function planOf(polls: number, levels: ReadonlyArray<'station' | 'line'>): RequestPlan {
  const entry = (level: 'station' | 'line') => ({
    collector: 'summary',
    window: '1h',
    level,
    requests: 2,
    refreshMs: polls * INTERVAL_MS,
    requestsPerMinute: 4,
    basis: 'default' as const,
  });
  return {
    entries: levels.map(entry),
    dropped: [],
    requestsPerMinute: 8,
    budgetPerMinute: 600,
    plannedCeilingPerMinute: 540,
    retryReserve: 0.1,
    stretch: 0,
  };
}

type Fault = 'none' | 'status' | 'circuit_open';

/** Each summary (window, level) every 3 polls. */
const EVERY_THIRD = planOf(3, ['station', 'line']);

function setup(plan: RequestPlan = EVERY_THIRD) {
  let fault: Fault = 'none';
  const failIfDown = (endpoint: Endpoint) => {
    if (fault === 'status') throw new UpstreamError(endpoint, 'status', { message: 'down', status: 503 });
    if (fault === 'circuit_open') throw new UpstreamError(endpoint, 'circuit_open', { message: 'not sent' });
  };
  const t = schedulerHarness(
    [summaryCollector, unitsCollector],
    {
      windows: ['1h'],
      summary: { interval: '10s', max_staleness: '30s', levels: ['station', 'line'], skip_idle: false },
      // A long overlap makes every units read two spans of one station list.
      units: { interval: '10s', max_staleness: '30s', overlap: '45m' },
    },
    {
      start: T0,
      plan: () => plan,
      answers: {
        summary: () => {
          failIfDown('station_summary');
          return { uniqueUnits: 10 };
        },
        // One output unit a minute before the end of each read, for each station asked for.
        units: (q) => {
          failIfDown('units');
          const time = (q.to?.getTime() ?? T0) - 60_000;
          return (q.stationIds ?? []).map((stationId) => ({
            stationId,
            slot: null,
            serial: `SN${time}`,
            time,
            direction: 'output' as const,
            result: 'pass' as const,
            unitType: null,
            mode: null,
          }));
        },
      },
    },
  );
  const of = (collector: string) => ({
    success: () => t.metric('collector_success', { collector }),
    age: () => t.metric('collector_data_age_seconds', { collector }),
    stale: () => t.metric('collector_stale', { collector }),
    requests: () => t.metric('collector_requests_total', { collector }),
    failures: () => t.metric('collector_request_failures_total', { collector }),
  });
  return {
    ...t,
    of,
    down: (f: Fault) => {
      fault = f;
    },
    /** Summary requests made by the next poll. */
    async poll() {
      const before = t.client.calls.filter((c) => c.endpoint === 'station_summary').length;
      await t.scheduler.pollOnce();
      return t.client.calls.filter((c) => c.endpoint === 'station_summary').length - before;
    },
  };
}

describe('an upstream outage longer than max_staleness', () => {
  it('keeps success 0, data age growing and stale 1 until a poll brings new data', async () => {
    const t = setup();
    await t.poll();
    for (const c of COLLECTORS) {
      expect(await t.of(c).success(), c).toBe(1);
      expect(await t.of(c).age(), c).toBe(0);
    }
    expect(await t.body()).toContain('station_unique_units{');
    expect(await t.body()).toContain('station_unit_records{');

    const healthy = new Map<string, number>();
    for (const c of COLLECTORS) healthy.set(c, (await t.of(c).requests()) ?? 0);
    t.down('status');
    const summaryCalls: number[] = [];
    const seen = new Map<string, { age: number[]; success: number[]; stale: number[]; unanswered: number[] }>(
      COLLECTORS.map((c) => [c, { age: [], success: [], stale: [], unanswered: [] }]),
    );
    // 150 s of outage against a 30 s bound: 503s first, then the circuit opens and nothing is sent.
    for (let i = 1; i <= 15; i++) {
      if (i === 4) t.down('circuit_open');
      t.advance(INTERVAL_MS);
      summaryCalls.push(await t.poll());
      for (const c of COLLECTORS) {
        const m = t.of(c);
        const s = seen.get(c);
        s?.age.push((await m.age()) ?? -1);
        s?.success.push((await m.success()) ?? -1);
        s?.stale.push((await m.stale()) ?? -1);
        s?.unanswered.push(((await m.requests()) ?? 0) - (healthy.get(c) ?? 0) - ((await m.failures()) ?? 0));
      }
    }
    // The plan left some summary polls with nothing due: they must not count as fresh.
    expect(summaryCalls).toContain(0);
    for (const c of COLLECTORS) {
      const { age, success, stale, unanswered } = seen.get(c) ?? {
        age: [],
        success: [],
        stale: [],
        unanswered: [],
      };
      // The age counts from the last good poll, every poll, without a reset.
      expect(age, c).toEqual(age.map((_, i) => ((i + 1) * INTERVAL_MS) / 1000));
      // Success 0 from the first poll that asks for something (within a refresh), never back to 1.
      const firstFailed = success.indexOf(0);
      expect(firstFailed, c).toBeGreaterThanOrEqual(0);
      expect(firstFailed, c).toBeLessThan(3);
      expect(success.slice(firstFailed), c).toEqual(success.slice(firstFailed).map(() => 0));
      // Once stale, stale for good; never before the 30 s bound, and surely once the last poll that
      // kept it (the healthy one, or one with nothing due right after it: at most 2) is 30 s old.
      expect(stale.indexOf(1), c).toBeGreaterThan(0);
      expect(stale.slice(stale.indexOf(1)), c).toEqual(stale.slice(stale.indexOf(1)).map(() => 1));
      stale.forEach((v, i) => {
        if (age[i]! <= 30) expect(v, `${c} at ${age[i]} s`).toBe(0);
        if (age[i]! > 30 + 2 * (INTERVAL_MS / 1000)) expect(v, `${c} at ${age[i]} s`).toBe(1);
      });
      // Counted per request: every request of the outage failed, none is left over as answered.
      expect(unanswered, c).toEqual(unanswered.map(() => 0));
    }
    const during = await t.body();
    expect(during).not.toContain('station_unique_units{');
    expect(during).not.toContain('station_unit_records{');

    // The upstream is back: each collector is fresh again at its first poll that asks for something.
    t.down('none');
    const recovered = new Set<string>();
    for (let i = 1; i <= 3 && recovered.size < COLLECTORS.length; i++) {
      t.advance(INTERVAL_MS);
      const sent = await t.poll();
      for (const c of COLLECTORS) {
        const m = t.of(c);
        const asked = c === 'units' || sent > 0;
        if (!asked && !recovered.has(c)) {
          // Nothing due yet: still stale, still failing, still old.
          expect(await m.stale(), c).toBe(1);
          expect(await m.success(), c).toBe(0);
          continue;
        }
        recovered.add(c);
      }
      for (const c of recovered) {
        expect(await t.of(c).stale(), c).toBe(0);
        expect(await t.of(c).success(), c).toBe(1);
      }
    }
    expect([...recovered].sort()).toEqual([...COLLECTORS]);
    expect(await t.body()).toContain('station_unique_units{');
    expect(await t.body()).toContain('station_unit_records{');
  });

  it('stays stale across a config reload until a poll brings new data', async () => {
    const t = setup();
    await t.poll();
    t.down('circuit_open');
    for (let i = 0; i < 4; i++) {
      t.advance(INTERVAL_MS);
      await t.poll();
    }
    expect(await t.of('units').stale()).toBe(1);
    // The reload's first poll gets no answer either: the old counters must not come back.
    const next = t.reload(t.scheduler);
    t.advance(INTERVAL_MS);
    await next.pollOnce();
    expect(await t.body()).not.toContain('station_unit_records{');
    expect(await t.of('units').stale()).toBe(1);
    expect(await t.of('units').age()).toBe(50);
    t.down('none');
    t.advance(INTERVAL_MS);
    await next.pollOnce();
    expect(await t.body()).toContain('station_unit_records{');
    expect(await t.of('units').stale()).toBe(0);
  });

  it('never drops a healthy collector whose plan defers its parts longer than max_staleness', async () => {
    // The line summary once every 10 polls (100 s) against a 30 s bound.
    const t = setup(planOf(10, ['line']));
    const ages: number[] = [];
    for (let i = 0; i < 25; i++) {
      if (i > 0) t.advance(INTERVAL_MS);
      const sent = await t.poll();
      const m = t.of('summary');
      expect(await m.stale(), `poll ${i}`).toBe(0);
      expect(await m.success(), `poll ${i}`).toBe(1);
      expect(await t.body()).toContain('station_line_unique_units{');
      ages.push(sent > 0 ? -1 : ((await m.age()) ?? -1));
    }
    // The age tells how old the data is: it grows between the polls that ask for something.
    expect(Math.max(...ages)).toBe(90);
  });
});
