import { describe, expect, it } from 'vitest';
import { ActivityBoard } from '../../../src/collectors/activity.ts';
import { SummaryJob } from '../../../src/collectors/summary/job.ts';
import { isDue, summarySchedule } from '../../../src/collectors/summary/schedule.ts';
import { planRequests } from '../../../src/planning/request-plan.ts';
import { SortedColumns } from '../../../src/records/columns.ts';
import type { StationSummary } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';
import { mergeRows } from '../../helpers/rows.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');

describe('summary schedule', () => {
  it('refreshes each entity once per planned refresh, spread evenly over the polls', () => {
    const plan = planRequests({
      windowedCollector: 'summary',
      summaryRequests: { station: 100 },
      levels: ['station'],
      windows: [{ name: '24h', lengthMs: 1440 * MIN, fullLengthMs: 1440 * MIN }],
      maxRequestsPerSecond: 100,
      baseIntervalMs: MIN,
    });
    const schedule = summarySchedule(plan, MIN, [{ window: '24h', level: 'station' }]);
    const s = schedule.get('24h\u0000station');
    expect(s?.rounds).toBe(10); // 24h -> 10m by default
    if (!s) return;
    const perPoll = Array.from({ length: 10 }, () => 0);
    for (let index = 0; index < 100; index++) {
      const due = Array.from({ length: 10 }, (_, p) => isDue({ index, count: 100 }, s, p));
      // Exactly one poll in ten, whatever the poll number's offset.
      expect(due.filter(Boolean)).toHaveLength(1);
      perPoll[due.indexOf(true)]!++;
    }
    expect(perPoll).toEqual(Array.from({ length: 10 }, () => 10));
  });
});

/** A summary answer counting unit records; which is what the idle check reasons about. */
const summaryOf = (units: number): StationSummary => ({ uniqueUnits: units });

describe('idle skipping', () => {
  it('skips stations with no unit record entering or leaving the window, and re-asks a sample', async () => {
    const plant = plantOf([10]);
    const topology = topologyOf([plant]);
    const ids = topology.stations.map((s) => s.id);
    const ctx = jobContext(
      { windows: ['15m'], summary: { levels: ['station'] } },
      { summary: (q) => summaryOf(q.stationIds.length) },
    );
    const activity = new ActivityBoard();
    // Station 0 had a unit a minute ago; the others none in the last hour.
    const busy = new SortedColumns(3, 3);
    mergeRows(busy, [{ time: T0 + 30_000, serial: 'u1', values: [0, 0, 0] }]);
    activity.update({ rowsOf: (id) => (id === ids[0] ? busy : undefined) }, ids, T0 - 60 * MIN);
    const job = new SummaryJob({ ...ctx, activity });
    const first = await job.poll({ topology, now: new Date(T0) });
    expect(first.requests).toBe(10); // nothing to compare with yet
    const second = await job.poll({ topology, now: new Date(T0 + MIN) });
    // Station 0 is asked; of the nine idle ones, the first skippable is re-asked to verify.
    expect(second.requests).toBe(2);
    expect(second.diagnostics?.idle).toEqual({ skipped: 8, verified: 1, disagreements: 0 });
    // Skipped stations keep their series, as fresh answers.
    const samples = second.families.find((f) => f.desc.name === 'station_unique_units')?.samples;
    expect(samples).toHaveLength(10);
  });

  it('counts a disagreement when a re-asked idle request answers differently', async () => {
    const topology = topologyOf([plantOf([1])]);
    const ids = topology.stations.map((s) => s.id);
    let units = 1;
    const ctx = jobContext(
      { windows: ['15m'], summary: { levels: ['station'] } },
      { summary: () => summaryOf(units) },
    );
    const activity = new ActivityBoard();
    activity.update({ rowsOf: () => undefined }, ids, T0 - 60 * MIN);
    const job = new SummaryJob({ ...ctx, activity });
    await job.poll({ topology, now: new Date(T0) });
    units = 2; // a unit the units collector has not seen
    const out = await job.poll({ topology, now: new Date(T0 + MIN) });
    expect(out.diagnostics?.idle).toEqual({ skipped: 0, verified: 1, disagreements: 1 });
  });

  it('does not skip when the records needed to decide have left the units store', () => {
    const board = new ActivityBoard();
    board.update({ rowsOf: () => undefined }, ['a'], T0);
    expect(board.quiet(['a'], [{ from: T0 - MIN, to: T0 }])).toBe(false);
    expect(board.quiet(['a'], [{ from: T0, to: T0 + MIN }])).toBe(true);
    expect(board.quiet(['b'], [{ from: T0, to: T0 + MIN }])).toBe(false);
  });
});
