import { describe, expect, it } from 'vitest';
import type { SummaryWindowProgress } from '../../../src/collectors/collector.ts';
import { firstPollOrder, WarmUp, windowProgress } from '../../../src/collectors/summary/first-poll.ts';
import { SummaryJob } from '../../../src/collectors/summary/job.ts';
import { configFromObject } from '../../../src/config/load.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');

const windowsOf = (names: string[]) =>
  configFromObject(
    { upstream: { base_url: 'http://fake', token: 't' }, windows: names },
    { env: {}, baseDir: '/' },
  ).windows;

describe('first-poll order', () => {
  it('puts the shortest window first and the station level first within each window', () => {
    const order = firstPollOrder(windowsOf(['24h', '1h', '15m']), ['site', 'line', 'station'], new Date(T0));
    expect(order.map((p) => `${p.window} ${p.level}`)).toEqual([
      '15m station',
      '15m site',
      '15m line',
      '1h station',
      '1h site',
      '1h line',
      '24h station',
      '24h site',
      '24h line',
    ]);
  });

  it('starts pairs in order while they fit the budget, the first always, and never lets a later one jump ahead', () => {
    const order = firstPollOrder(windowsOf(['15m', '1h']), ['station', 'line'], new Date(T0));
    const sizes: Record<string, number> = {
      '15m station': 100,
      '15m line': 10,
      '1h station': 60,
      '1h line': 10,
    };
    const fresh = (p: { window: string; level: string }) => sizes[`${p.window} ${p.level}`] ?? 0;
    const warmUp = new WarmUp(50);
    const keys = (s: Set<string>) => [...s].map((k) => k.replace('\u0000', ' '));
    // The first pair always starts, however large.
    expect(keys(warmUp.admit(order, fresh))).toEqual(['15m station']);
    // 1h station does not fit after 15m line; 1h line would, but may not jump ahead of it.
    expect(keys(warmUp.admit(order, fresh))).toEqual(['15m station', '15m line']);
    // Started pairs stay admitted (a failed first answer is asked again).
    expect(keys(warmUp.admit(order, fresh))).toEqual(['15m station', '15m line', '1h station']);
    expect(keys(warmUp.admit(order, fresh))).toEqual(['15m station', '15m line', '1h station', '1h line']);
  });

  it('says a window is complete when every planned level of it has an answer for every entity', () => {
    const order = firstPollOrder(windowsOf(['15m', '1h', '24h']), ['station', 'line'], new Date(T0));
    const answered = new Set(['15m station', '15m line', '1h station']);
    const progress = windowProgress(order, {
      planned: (p) => p.window !== '24h' || p.level === 'station',
      answered: (p) => answered.has(`${p.window} ${p.level}`),
    });
    expect(progress).toEqual([
      { window: '15m', complete: true, levelsComplete: ['station', 'line'] },
      { window: '1h', complete: false, levelsComplete: ['station'] },
      { window: '24h', complete: false, levelsComplete: [] },
    ]);
  });
});

describe('summary job, first poll at the request ceiling', () => {
  // 40 stations on 4 lines; 0.5 requests/s × 60 s: 30 requests may start in one poll.
  const plant = plantOf([10, 10, 10, 10]);
  const topology = topologyOf([plant]);
  const stationIds = new Set(topology.stations.map((s) => s.id));

  function setup() {
    const ctx = jobContext(
      {
        upstream: { base_url: 'http://fake', token: 't', max_requests_per_second: 0.5 },
        windows: ['1h', '24h', '15m'],
        summary: { interval: '60s', levels: ['line', 'station'] },
      },
      { summary: (q) => ({ uniqueUnits: q.stationIds.length }) },
    );
    let progress: () => readonly SummaryWindowProgress[] = () => [];
    const job = new SummaryJob({
      ...ctx,
      offerSummaryWindows: (read) => {
        progress = read;
      },
    });
    return { ctx, job, progress: () => progress() };
  }

  const windowOf = (q: unknown) => {
    const { from, to } = q as { from: Date; to: Date };
    return (to.getTime() - from.getTime()) / MIN;
  };

  it('asks the shortest window for every station first, and the longer windows in the next polls', async () => {
    const { ctx, job, progress } = setup();
    expect(progress()).toEqual([]);
    const first = await job.poll({ topology, now: new Date(T0) });
    const calls = ctx.client.calls.map((c) => c.query as { stationIds: string[] });
    // Every station's 15m summary, and nothing else: the first poll is published after these alone.
    expect(first.requests).toBe(40);
    expect(calls.map(windowOf)).toEqual(Array.from({ length: 40 }, () => 15));
    expect(new Set(calls.map((q) => q.stationIds.join()))).toEqual(stationIds);
    expect(progress()).toEqual([
      { window: '15m', complete: false, levelsComplete: ['station'] },
      { window: '1h', complete: false, levelsComplete: [] },
      { window: '24h', complete: false, levelsComplete: [] },
    ]);

    // Then the 15m lines (stations are refreshed on every poll without a plan), then 1h, then 24h.
    const windowsAsked: number[][] = [];
    for (let poll = 1; poll <= 5; poll++) {
      const before = ctx.client.calls.length;
      await job.poll({ topology, now: new Date(T0 + poll * MIN) });
      const asked = ctx.client.calls.slice(before).map((c) => windowOf(c.query));
      windowsAsked.push([...new Set(asked)].sort((a, b) => a - b));
    }
    expect(windowsAsked).toEqual([[15], [15, 60], [15, 60], [15, 60, 1440], [15, 60, 1440]]);
    expect(progress()).toEqual([
      { window: '15m', complete: true, levelsComplete: ['station', 'line'] },
      { window: '1h', complete: true, levelsComplete: ['station', 'line'] },
      { window: '24h', complete: true, levelsComplete: ['station', 'line'] },
    ]);
  });

  it('sends everything in the first poll when it fits one interval at the ceiling, shortest window first', async () => {
    const ctx = jobContext(
      { windows: ['24h', '15m'], summary: { interval: '60s', levels: ['line', 'station'] } },
      { summary: (q) => ({ uniqueUnits: q.stationIds.length }) },
    );
    const small = topologyOf([plantOf([2, 2])]);
    const out = await new SummaryJob(ctx).poll({ topology: small, now: new Date(T0) });
    expect(out.requests).toBe(12);
    const asked = ctx.client.calls.map((c) => ({
      minutes: windowOf(c.query),
      stations: (c.query as { stationIds: string[] }).stationIds.length,
    }));
    expect(asked).toEqual([
      ...Array.from({ length: 4 }, () => ({ minutes: 15, stations: 1 })),
      ...Array.from({ length: 2 }, () => ({ minutes: 15, stations: 2 })),
      ...Array.from({ length: 4 }, () => ({ minutes: 1440, stations: 1 })),
      ...Array.from({ length: 2 }, () => ({ minutes: 1440, stations: 2 })),
    ]);
  });
});
