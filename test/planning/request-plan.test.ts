import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/config/schema.ts';
import type { Level } from '../../src/model/topology.ts';
import { renderPlan } from '../../src/planning/plan-text.ts';
import {
  DEFAULT_RETRY_RESERVE,
  defaultRefreshMs,
  longestRefreshMs,
  longestShiftMs,
  type PlanInput,
  type PlanWindow,
  planRequests,
  planWindows,
  type RequestPlan,
} from '../../src/planning/request-plan.ts';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const LEVELS: Level[] = ['station', 'group', 'line', 'site'];
const limits = { baseIntervalMs: M, maxRefreshMs: 15 * M };

function rolling(name: string, ms: number, refreshMs?: number): PlanWindow {
  return refreshMs === undefined
    ? { name, lengthMs: ms, fullLengthMs: ms }
    : { name, lengthMs: ms, fullLengthMs: ms, refreshMs };
}

/** The reference plant: 1,000 stations, 10 groups, 100 lines, 3 sites; 4 record requests per poll each. */
function reference(overrides: Partial<PlanInput> = {}): PlanInput {
  return {
    windowedCollector: 'summary',
    summaryRequests: { station: 1000, group: 10, line: 100, site: 3 },
    levels: LEVELS,
    windows: [rolling('15m', 15 * M), rolling('1h', H), rolling('24h', 24 * H)],
    records: [
      { collector: 'measurements', requestsPerPoll: 4, intervalMs: M },
      { collector: 'units', requestsPerPoll: 4, intervalMs: M },
    ],
    maxRequestsPerSecond: 10,
    baseIntervalMs: M,
    ...overrides,
  };
}

function entry(plan: RequestPlan, window: string, level: Level) {
  const e = plan.entries.find((x) => x.window === window && x.level === level);
  if (!e) throw new Error(`no entry for ${window} ${level}`);
  return e;
}

describe('refresh formulas', () => {
  it('grows the default with the square root of the length, in nice steps', () => {
    // √(L × 4 s): 15m -> 60 s, 1h -> 120 s exactly; 24h -> 587.9 s, nearest step 10m; 7d -> 1555 s, capped.
    expect(defaultRefreshMs(15 * M, limits)).toBe(M);
    expect(defaultRefreshMs(H, limits)).toBe(2 * M);
    expect(defaultRefreshMs(24 * H, limits)).toBe(10 * M);
    expect(defaultRefreshMs(7 * 24 * H, limits)).toBe(15 * M);
    // 8h: √(28,800 s × 4 s) = 339 s, between the 5m and 6m steps and nearer 6m.
    expect(defaultRefreshMs(8 * H, limits)).toBe(6 * M);
    // Never faster than the base interval, even for a window that has just begun.
    expect(defaultRefreshMs(0, limits)).toBe(M);
    expect(defaultRefreshMs(5 * M, { baseIntervalMs: 2 * M, maxRefreshMs: 15 * M })).toBe(2 * M);
  });

  it('allows at most a fifth of the window, capped at 15 minutes', () => {
    expect(longestRefreshMs(rolling('15m', 15 * M), limits)).toBe(3 * M);
    expect(longestRefreshMs(rolling('1h', H), limits)).toBe(12 * M);
    expect(longestRefreshMs(rolling('24h', 24 * H), limits)).toBe(15 * M);
    // A 2m window: a fifth is 24 s, below the default, so the default is also the longest.
    expect(longestRefreshMs(rolling('2m', 2 * M), limits)).toBe(M);
  });
});

describe('calendar windows', () => {
  const today: WindowSpec = { name: 'today', kind: 'today', timezone: 'UTC' };
  const shift: WindowSpec = {
    name: 'shift',
    kind: 'shift',
    timezone: 'UTC',
    shiftStarts: ['06:00', '14:00', '22:00'],
  };

  it('take the default from the elapsed length and the longest from the full length', () => {
    const at = (iso: string) => planWindows([today, shift], new Date(iso));
    const [day, sh] = at('2024-03-04T06:00:00Z');
    expect(day).toEqual({ name: 'today', lengthMs: 6 * H, fullLengthMs: 24 * H });
    expect(sh).toEqual({ name: 'shift', lengthMs: 0, fullLengthMs: 8 * H });
    // 6h elapsed: √(21,600 s × 4 s) = 294 s -> 5m; 40m elapsed: 98 s -> 2m.
    expect(defaultRefreshMs(day!.lengthMs, limits)).toBe(5 * M);
    expect(defaultRefreshMs(at('2024-03-04T00:40:00Z')[0]!.lengthMs, limits)).toBe(2 * M);
    expect(longestRefreshMs(day!, limits)).toBe(15 * M);
    expect(longestRefreshMs(sh!, limits)).toBe(15 * M);
  });

  it('a week: elapsed since its first midnight, at most 7 days, refreshed at most every 15m', () => {
    const week: WindowSpec = { name: 'week', kind: 'week', timezone: 'UTC', weekStarts: 'monday' };
    // Wednesday 2024-03-06 06:00 UTC: two days and six hours into the week of Monday 4 March.
    const [w] = planWindows([week], new Date('2024-03-06T06:00:00Z'));
    expect(w).toEqual({ name: 'week', lengthMs: 54 * H, fullLengthMs: 7 * 24 * H });
    // √(194,400 s × 4 s) = 882 s, nearest step 15m, which is also the cap.
    expect(defaultRefreshMs(w!.lengthMs, limits)).toBe(15 * M);
    expect(longestRefreshMs(w!, limits)).toBe(15 * M);
    // Monday 00:20: the new week is 20 minutes old, √(1,200 s × 4 s) = 69 s -> 1m.
    const [fresh] = planWindows([week], new Date('2024-03-11T00:20:00Z'));
    expect(fresh!.lengthMs).toBe(20 * M);
    expect(defaultRefreshMs(fresh!.lengthMs, limits)).toBe(M);
  });

  it('measure the longest shift across midnight', () => {
    expect(longestShiftMs(['06:00', '14:00', '22:00'])).toBe(8 * H);
    expect(longestShiftMs(['22:00', '07:30'])).toBe(14.5 * H);
    expect(longestShiftMs(['06:00'])).toBe(24 * H);
  });

  it('a day that has just begun forces no drop: it can stretch like any day', () => {
    const windows = planWindows(
      [
        { name: '15m', kind: 'rolling', durationMs: 15 * M },
        { name: '1h', kind: 'rolling', durationMs: H },
        today,
      ],
      new Date('2024-03-04T00:00:00Z'),
    );
    const plan = planRequests(reference({ windows }));
    expect(plan.dropped).toEqual([]);
    expect(plan.requestsPerMinute).toBeLessThanOrEqual(plan.plannedCeilingPerMinute);
    // Just after midnight `today` covers almost nothing, so by the relative rule it is the window
    // most worth refreshing: 15m and 1h go to their longest (3m, 12m) and the day takes what is left.
    expect(entry(plan, '15m', 'station')).toMatchObject({ refreshMs: 3 * M, basis: 'longest' });
    expect(entry(plan, '1h', 'station')).toMatchObject({ refreshMs: 12 * M, basis: 'longest' });
    const left = 570 - 8 - 1113 / 3 - 1113 / 12;
    const day = entry(plan, 'today', 'station').refreshMs;
    expect(Math.abs(day - (1113 / left) * M)).toBeLessThan(S);
    expect(day).toBeLessThanOrEqual(15 * M);
  });
});

describe('the reference plant at 10 requests/s', () => {
  const plan = planRequests(reference());

  it('fits with the 15m window at most every 3 minutes and the 24h window at most every 15', () => {
    expect(plan.dropped).toEqual([]);
    // Independently: 24h sits at its longest (15m); 15m and 1h stretch to f × L with the rest of
    // the budget: 1113 × (1/(15 f) + 1/(60 f)) = 570 − 8 − 1113/15 requests per minute.
    const perWindow = 1000 + 10 + 100 + 3;
    const ceiling = 10 * 60 * (1 - DEFAULT_RETRY_RESERVE);
    const f = (perWindow * (1 / 15 + 1 / 60)) / (ceiling - 8 - perWindow / 15);
    // The assumptions behind the closed form: 15m and 1h are between default and longest, 24h is capped.
    expect(f * 15).toBeGreaterThan(1);
    expect(f * 15).toBeLessThan(3);
    expect(f * 60).toBeGreaterThan(2);
    expect(f * 60).toBeLessThan(12);
    expect(f * 24 * 60).toBeGreaterThan(15);
    for (const level of LEVELS) {
      const quarter = entry(plan, '15m', level).refreshMs;
      expect(quarter).toBeLessThanOrEqual(3 * M);
      expect(Math.abs(quarter - f * 15 * M)).toBeLessThan(S);
      expect(quarter).toBeGreaterThanOrEqual(f * 15 * M);
      const hour = entry(plan, '1h', level).refreshMs;
      expect(Math.abs(hour - f * H)).toBeLessThan(S);
      expect(entry(plan, '24h', level).refreshMs).toBe(15 * M);
      expect(entry(plan, '24h', level).basis).toBe('longest');
    }
    expect(plan.stretch).toBeCloseTo(f, 8);
  });

  it('costs what its refreshes say and stays below the budget less the reserve', () => {
    const sum = plan.entries.reduce((s, e) => s + (e.requests * M) / e.refreshMs, 0);
    expect(plan.requestsPerMinute).toBeCloseTo(sum, 9);
    expect(plan.requestsPerMinute).toBeLessThanOrEqual(570);
    // Whole-second rounding leaves a little unused, never much.
    expect(plan.requestsPerMinute).toBeGreaterThan(565);
    expect(plan.budgetPerMinute).toBe(600);
    const records = plan.entries.filter((e) => e.window === undefined);
    expect(records.map((e) => [e.collector, e.refreshMs, e.requestsPerMinute])).toEqual([
      ['measurements', M, 4],
      ['units', M, 4],
    ]);
  });

  it('keeps defaults when they fit', () => {
    const roomy = planRequests(reference({ maxRequestsPerSecond: 100 }));
    expect(roomy.stretch).toBe(0);
    expect(entry(roomy, '15m', 'station').refreshMs).toBe(M);
    expect(entry(roomy, '1h', 'line').refreshMs).toBe(2 * M);
    expect(entry(roomy, '24h', 'site').refreshMs).toBe(10 * M);
    expect(entry(roomy, '24h', 'site').basis).toBe('default');
    // 1113 × (1 + 1/2 + 1/10) + 8
    expect(roomy.requestsPerMinute).toBeCloseTo(1113 * 1.6 + 8, 9);
  });
});

describe('a budget too small', () => {
  it('drops in the documented order until the longest refreshes fit', () => {
    const plan = planRequests(reference({ maxRequestsPerSecond: 2 }));
    // Independently: cost per minute at the longest refreshes (3m, 12m, 15m), in drop order.
    const longest: Record<string, number> = { '15m': 3, '1h': 12, '24h': 15 };
    const counts: Record<Level, number> = { station: 1000, group: 10, line: 100, site: 3 };
    const order = LEVELS.flatMap((level) => ['15m', '1h', '24h'].map((w) => ({ level, w })));
    let cost = 8 + order.reduce((s, { level, w }) => s + counts[level] / longest[w]!, 0);
    const expected: string[] = [];
    for (const { level, w } of order) {
      if (cost <= 2 * 60 * 0.95) break;
      cost -= counts[level] / longest[w]!;
      expected.push(`${w} ${level}`);
    }
    expect(expected.length).toBeGreaterThan(0);
    expect(plan.dropped.map((d) => `${d.window} ${d.level}`)).toEqual(expected);
    expect(plan.requestsPerMinute).toBeLessThanOrEqual(plan.plannedCeilingPerMinute);
    for (const d of plan.dropped) {
      expect(plan.entries.some((e) => e.window === d.window && e.level === d.level)).toBe(false);
    }
    const text = renderPlan(plan);
    expect(text).toContain('dropped, in this order');
    expect(text).toContain('summary 15m station: 1000 requests, 333.3 requests/min at its longest refresh');
  });

  it('drops the records collectors last of all', () => {
    const plan = planRequests(reference({ maxRequestsPerSecond: 0.01 }));
    expect(plan.entries.filter((e) => e.requests > 0)).toEqual([]);
    expect(plan.dropped.slice(-2).map((d) => d.collector)).toEqual(['measurements', 'units']);
    expect(plan.dropped.at(-3)).toMatchObject({ window: '24h', level: 'site' });
    expect(plan.requestsPerMinute).toBe(0);
  });
});

describe('per-window overrides', () => {
  it('are kept exactly while the other windows stretch', () => {
    const windows = [rolling('15m', 15 * M, 30 * S), rolling('1h', H), rolling('24h', 24 * H, H)];
    const plan = planRequests(reference({ windows, maxRequestsPerSecond: 60 }));
    expect(plan.dropped).toEqual([]);
    for (const level of LEVELS) {
      expect(entry(plan, '15m', level)).toMatchObject({ refreshMs: 30 * S, basis: 'override' });
      expect(entry(plan, '24h', level)).toMatchObject({ refreshMs: H, basis: 'override' });
    }
    // 15m costs 2226/min and 24h 18.55/min; 1h at its 2m default costs 556.5: 2809 of 3420 fits.
    expect(entry(plan, '1h', 'station').refreshMs).toBe(2 * M);
    const tight = planRequests(reference({ windows, maxRequestsPerSecond: 42 }));
    // 42 × 60 × 0.95 = 2394 left 2394 − 2226 − 18.55 − 8 = 141.45 for 1h: 1113/141.45 = 7.87 minutes.
    const hour = entry(tight, '1h', 'station').refreshMs;
    expect(Math.abs(hour - (1113 / (2394 - 2226 - 1113 / 60 - 8)) * M)).toBeLessThan(S);
    expect(entry(tight, '15m', 'station').refreshMs).toBe(30 * S);
  });
});

describe('the total never exceeds the budget', () => {
  it('over many generated plants', () => {
    let seed = 42;
    const next = () => {
      // A fixed linear congruential generator: the same plants on every run.
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const lengths = [5 * M, 15 * M, 30 * M, H, 4 * H, 8 * H, 24 * H, 7 * 24 * H];
    for (let i = 0; i < 300; i++) {
      const windows = lengths
        .filter(() => next() < 0.4)
        .map((ms, j) =>
          next() < 0.15 ? rolling(`w${j}`, ms, Math.ceil(next() * 10) * M) : rolling(`w${j}`, ms),
        );
      if (windows.length === 0) windows.push(rolling('1h', H));
      const stations = Math.floor(next() * 10_000);
      const input = reference({
        windowedCollector: 'summary',
        summaryRequests: {
          station: stations,
          group: Math.floor(stations / 20),
          line: Math.floor(stations / 10),
          site: 1 + Math.floor(next() * 5),
        },
        levels: LEVELS.filter(() => next() < 0.7),
        windows,
        maxRequestsPerSecond: 0.5 + next() * 50,
        retryReserve: next() * 0.3,
        baseIntervalMs: (1 + Math.floor(next() * 3)) * 30 * S,
      });
      const plan = planRequests(input);
      expect(plan.requestsPerMinute).toBeLessThanOrEqual(plan.plannedCeilingPerMinute);
      for (const e of plan.entries) {
        const w = windows.find((x) => x.name === e.window);
        if (w === undefined) continue;
        if (w.refreshMs !== undefined) expect(e.refreshMs).toBe(w.refreshMs);
        else {
          const lim = { baseIntervalMs: input.baseIntervalMs, maxRefreshMs: 15 * M };
          expect(e.refreshMs).toBeGreaterThanOrEqual(defaultRefreshMs(w.lengthMs, lim));
          expect(e.refreshMs).toBeLessThanOrEqual(longestRefreshMs(w, lim));
        }
      }
    }
  });

  it('rejects nonsense', () => {
    expect(() => planRequests(reference({ maxRequestsPerSecond: 0 }))).toThrow(RangeError);
    expect(() => planRequests(reference({ retryReserve: 1 }))).toThrow(RangeError);
    expect(() => planRequests(reference({ summaryRequests: { station: -1 } }))).toThrow(RangeError);
  });
});

describe('plan text', () => {
  it('lists every entry with its refresh and cost, and the total against the budget', () => {
    const text = renderPlan(planRequests(reference()));
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'Request plan: budget 600.0 requests/min, 5 % kept for retries, so at most 570.0 planned.',
    );
    expect(lines.some((l) => /^summary\s+24h\s+station\s+1000\s+15m \(longest\)\s+66\.7$/.test(l))).toBe(
      true,
    );
    expect(lines.some((l) => /^units\s+-\s+-\s+4\s+1m\s+4\.0$/.test(l))).toBe(true);
    expect(text).toMatch(/Total: 56\d\.\d requests\/min of 570\.0 planned \(9\d % of the budget\)\./);
    expect(text).not.toContain('dropped');
  });
});
