import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { PollOutcome } from '../../src/collectors/collector.ts';
import { Registry } from '../../src/exposition/client.ts';
import { LabelSet } from '../../src/exposition/model.ts';
import type { Topology } from '../../src/model/topology.ts';
import { PlanMetrics } from '../../src/planning/plan-metrics.ts';
import { PlanTracker } from '../../src/planning/plan-tracker.ts';
import type { RequestPlan } from '../../src/planning/request-plan.ts';
import { SeriesBudget } from '../../src/planning/series-budget.ts';
import { plantOf, topologyOf } from '../helpers/fake-client.ts';

/** A plan with the 15m window refreshed every `refreshS` seconds and `dropped` entries left out. */
function planOf(refreshS: number, dropped = 0): RequestPlan {
  const entry = (window: string, seconds: number) => ({
    collector: 'summary',
    window,
    level: 'station' as const,
    requests: 10,
    refreshMs: seconds * 1000,
    requestsPerMinute: (10 * 60) / seconds,
    basis: 'default' as const,
  });
  return {
    entries: [
      entry('15m', refreshS),
      entry('24h', 900),
      { ...entry('x', 60), window: undefined, level: undefined, collector: 'units' },
    ],
    dropped: Array.from({ length: dropped }, () => ({
      collector: 'summary',
      window: '24h',
      level: 'site' as const,
      requests: 1,
      requestsPerMinute: 1,
    })),
    requestsPerMinute: 50,
    budgetPerMinute: 600,
    plannedCeilingPerMinute: 540,
    retryReserve: 0.1,
    stretch: 0,
  };
}

function setup(opts: { maxSeries?: number; planner?: (t: Topology) => (now: Date) => RequestPlan } = {}) {
  const registry = new Registry();
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  let now = 1_000_000;
  const tracker = new PlanTracker({
    logger,
    wallClock: () => now,
    windows: ['15m', '24h'],
    collectors: ['summary', 'measurements', 'units'],
    planner: opts.planner,
    planMetrics: new PlanMetrics(registry),
    seriesBudget: new SeriesBudget(opts.maxSeries),
  });
  const values = async (name: string) => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === `station_exporter_${name}`);
    return (m?.values ?? []).map((v) => ({ labels: { ...v.labels }, value: v.value }));
  };
  // pino writes asynchronously only with a sonic-boom destination; a Writable gets each line at once.
  return { tracker, lines, values, advance: (ms: number) => (now += ms) };
}

const outcome = (over: Partial<PollOutcome> = {}): PollOutcome => ({
  families: [],
  requests: 4,
  failures: 0,
  ...over,
});

describe('PlanTracker: the request plan', () => {
  it('plans once per set of entities, and again when they change', () => {
    const planned: Topology[] = [];
    const { tracker } = setup({
      planner: (t) => {
        planned.push(t);
        return () => planOf(60);
      },
    });
    const small = topologyOf([plantOf([2])]);
    tracker.topology(small);
    tracker.topology(topologyOf([plantOf([2])]));
    expect(planned).toHaveLength(1);
    const bigger = topologyOf([plantOf([3])]);
    tracker.topology(bigger);
    expect(planned).toEqual([small, bigger]);
  });

  it('has no plan without a planner', () => {
    const { tracker } = setup();
    tracker.topology(topologyOf([plantOf([1])]));
    expect(tracker.plan(new Date(0))).toBeUndefined();
  });

  it('exports the planned refresh of every (collector, window, level) and logs only a changed plan', async () => {
    let refresh = 60;
    const { tracker, values, lines } = setup({ planner: () => () => planOf(refresh) });
    tracker.topology(topologyOf([plantOf([1])]));
    tracker.plan(new Date(0));
    tracker.plan(new Date(60_000));
    expect(await values('refresh_planned_seconds')).toEqual(
      expect.arrayContaining([
        { labels: { collector: 'summary', window: '15m', level: 'station' }, value: 60 },
        { labels: { collector: 'summary', window: '24h', level: 'station' }, value: 900 },
        // A records collector refreshes every window on each poll.
        { labels: { collector: 'units', window: '15m', level: 'station' }, value: 60 },
        { labels: { collector: 'units', window: '24h', level: 'station' }, value: 60 },
      ]),
    );
    expect(await values('request_budget_per_second')).toEqual([{ labels: {}, value: 10 }]);
    expect(lines.filter((l) => l.msg === 'request plan changed')).toHaveLength(1);
    refresh = 120;
    tracker.plan(new Date(120_000));
    expect(lines.filter((l) => l.msg === 'request plan changed')).toHaveLength(2);
    expect((await values('refresh_planned_seconds'))[0]).toEqual({
      labels: { collector: 'summary', window: '15m', level: 'station' },
      value: 120,
    });
  });

  it('warns, naming what it drops, when the budget cannot carry every entry', async () => {
    const { tracker, values, lines } = setup({ planner: () => () => planOf(60, 1) });
    tracker.topology(topologyOf([plantOf([1])]));
    tracker.plan(new Date(0));
    const line = lines.find((l) => l.msg.startsWith('request plan changed;'));
    expect(line).toMatchObject({ level: 40, dropped: ['summary 24h site'], budget_per_minute: 600 });
    expect(await values('plan_dropped_entries')).toEqual([{ labels: {}, value: 1 }]);
  });
});

describe('PlanTracker: achieved refresh and idle skipping', () => {
  it("takes a summary poll's own achieved refresh and adds up idle skipping", async () => {
    const { tracker, values } = setup();
    const idle = { skipped: 7, verified: 1, disagreements: 0 };
    const refresh = [{ window: '15m', level: 'line', seconds: 75 }];
    tracker.published('summary', outcome({ diagnostics: { refresh, idle } }));
    tracker.published('summary', outcome({ diagnostics: { idle } }));
    expect(await values('refresh_achieved_seconds')).toEqual([
      { labels: { collector: 'summary', window: '15m', level: 'line' }, value: 75 },
    ]);
    expect(await values('idle_skipped_requests_total')).toEqual([{ labels: {}, value: 14 }]);
    expect(await values('idle_skip_verified_total')).toEqual([{ labels: {}, value: 2 }]);
  });

  it('measures a records collector from one successful poll to the next; a failed poll does not count', async () => {
    const { tracker, values, advance } = setup();
    tracker.published('units', outcome());
    expect(await values('refresh_achieved_seconds')).toEqual([]);
    advance(60_000);
    tracker.published('units', outcome({ failures: 1 }));
    advance(30_000);
    tracker.published('units', outcome());
    expect(await values('refresh_achieved_seconds')).toEqual([
      { labels: { collector: 'units', window: '15m', level: 'station' }, value: 90 },
      { labels: { collector: 'units', window: '24h', level: 'station' }, value: 90 },
    ]);
  });
});

describe('PlanTracker: a reload', () => {
  it('takes the achieved refresh of a removed window or a disabled collector with it', async () => {
    const registry = new Registry();
    const planMetrics = new PlanMetrics(registry);
    let now = 1_000_000;
    const tracker = (windows: string[], collectors: string[]) =>
      new PlanTracker({
        logger: pino({ level: 'silent' }),
        wallClock: () => now,
        windows,
        collectors,
        planMetrics,
        seriesBudget: new SeriesBudget(undefined),
      });
    const series = async () => {
      const m = (await registry.getMetricsAsJSON()).find(
        (x) => x.name === 'station_exporter_refresh_achieved_seconds',
      );
      return (m?.values ?? [])
        .map((v) => `${v.labels.collector}/${v.labels.window}/${v.labels.level}`)
        .sort();
    };
    const before = tracker(['15m', '24h'], ['summary', 'measurements', 'units']);
    const refresh = [
      { window: '15m', level: 'line', seconds: 60 },
      { window: '24h', level: 'line', seconds: 600 },
    ];
    before.published('summary', outcome({ diagnostics: { refresh } }));
    for (const c of ['units', 'measurements']) {
      before.published(c, outcome());
      now += 60_000;
      before.published(c, outcome());
    }
    expect(await series()).toEqual([
      'measurements/15m/station',
      'measurements/24h/station',
      'summary/15m/line',
      'summary/24h/line',
      'units/15m/station',
      'units/24h/station',
    ]);
    // The reload drops the 24h window and the measurements collector: their series go at once.
    const after = tracker(['15m'], ['summary', 'units']);
    expect(await series()).toEqual(['summary/15m/line', 'units/15m/station']);
    // A summary poll whose plan no longer has a (window, level) takes that series away too.
    after.published('summary', outcome({ diagnostics: { refresh: [] } }));
    expect(await series()).toEqual(['units/15m/station']);
  });
});

describe('PlanTracker: the series budget', () => {
  const family = (name: string, n: number) => ({
    desc: { name, kind: 'gauge' as const, help: '' },
    samples: Array.from({ length: n }, (_, i) => ({ labels: LabelSet.of({ i: String(i) }), value: i })),
  });

  it('lets everything through without a limit', () => {
    const { tracker } = setup();
    const families = [family('station_measurement_window_min', 3)];
    expect(tracker.admit('measurements', families)).toBe(families);
  });

  it('exports and logs the families left out once, and logs again when the budget is met', async () => {
    const { tracker, values, lines } = setup({ maxSeries: 100 });
    const over = [
      family('station_measurement_window_mean', 80),
      family('station_measurement_window_min', 40),
    ];
    const kept = tracker.admit('measurements', over);
    tracker.published('measurements', outcome());
    tracker.admit('measurements', over);
    tracker.published('measurements', outcome());
    expect(kept.map((f) => f.desc.name)).toEqual(['station_measurement_window_mean']);
    expect(await values('series_dropped')).toEqual([
      { labels: { family: 'station_measurement_window_min' }, value: 40 },
    ]);
    const warned = lines.filter((l) => l.msg.startsWith('series budget exceeded'));
    expect(warned).toEqual([
      expect.objectContaining({ max_series: 100, dropped: { station_measurement_window_min: 40 } }),
    ]);
    tracker.admit('measurements', [family('station_measurement_window_min', 40)]);
    tracker.published('measurements', outcome());
    expect(await values('series_dropped')).toEqual([]);
    expect(lines.at(-1)?.msg).toBe('series budget met again: no family is left out');
  });
});
