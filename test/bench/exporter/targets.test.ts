/** The target rows of `npm run bench`: each target evaluated from the run's figures. */
import { describe, expect, it } from 'vitest';
import type { CombinedOutcome } from '../../../bench/exporter/combined.ts';
import type { BenchResults } from '../../../bench/exporter/rows.ts';
import { targetRows } from '../../../bench/exporter/targets.ts';
import type { SizedRunResult } from '../../../bench/shared/protocol.ts';
import { rowPasses } from '../../../bench/shared/results.ts';
import type { ControlBenchResult } from '../../../bench/spc/control.ts';

const MiB = 2 ** 20;
const poll = (maxBlockMs: number) => ({ maxBlockMs }) as BenchResults['first'];

function sized(rssMiB: number): SizedRunResult {
  const reading = (at: string, rss: number) => ({
    at,
    rssBytes: rss * MiB,
    heapUsedBytes: 0,
    heapTotalBytes: 0,
    arrayBuffersBytes: 0,
  });
  return {
    type: 'sized-run',
    stations: 559,
    series: 99_700,
    steadyPolls: 3,
    idleMs: 5000,
    readings: [reading('start', 900), reading('after the first poll', rssMiB)],
  };
}

function results(o: { limited: number; unlimited: number; blockMs: number }): BenchResults {
  return {
    first: poll(o.blockMs),
    steady: poll(0),
    scrapeMaxBlockMs: 0,
    sized: { limited: sized(o.limited), unlimited: sized(o.unlimited), limitMiB: 512, how: 'a cgroup' },
  } as unknown as BenchResults;
}

function control(o: {
  storeMiB: number;
  pollMs: number;
  perChart: number;
  blockMs: number;
}): ControlBenchResult {
  return {
    stations: 1000,
    names: 5,
    baselineHours: 168,
    records: 165_000,
    history: 25_355_000,
    storeBytes: o.storeMiB * MiB,
    loadingBytes: 0,
    loadingPeakRss: 0,
    startRss: 0,
    chartBytes: 0,
    charts: 5000,
    firstPollMs: 0,
    pollMs: [o.pollMs, o.pollMs, o.pollMs],
    pollCpuMs: [1, 1, 1],
    maxBlockMs: o.blockMs,
    series: 0,
    maxSeries: 5000 * o.perChart,
    seriesPerChart: o.perChart,
    outOfControl: 0,
    renderMs: 0,
  };
}

const combined = (rssMiB: number, c: ControlBenchResult): CombinedOutcome => ({
  ok: true,
  how: 'a cgroup',
  run: {
    type: 'combined-run',
    stations: 559,
    series: 99_700,
    highest: { rssBytes: rssMiB * MiB, at: 'x' },
    control: c,
  },
});

const verdicts = (rows: ReturnType<typeof targetRows>) => rows.map(rowPasses).filter((v) => v !== undefined);

describe('targetRows', () => {
  it('passes every target a run meets, one row each', () => {
    const c = control({ storeMiB: 90, pollMs: 50, perChart: 12, blockMs: 90 });
    const rows = targetRows(results({ limited: 180, unlimited: 240, blockMs: 99 }), {
      control: c,
      combined: combined(399, c),
      first15mSeconds: 120,
    });
    expect(rows).toHaveLength(7);
    expect(verdicts(rows)).toEqual([true, true, true, true, true, true]);
  });

  it('misses each target just over it, the event-loop block at 100 ms', () => {
    const c = control({ storeMiB: 129, pollMs: 61, perChart: 13, blockMs: 101 });
    const rows = targetRows(results({ limited: 201, unlimited: 251, blockMs: 0 }), {
      control: c,
      combined: combined(401, c),
      first15mSeconds: 121,
    });
    expect(verdicts(rows)).toEqual([false, false, false, false, false, false]);
  });

  it('counts a combined run that died (OOM) as a miss, with the RSS read before', () => {
    const c = control({ storeMiB: 90, pollMs: 50, perChart: 12, blockMs: 0 });
    const rows = targetRows(results({ limited: 180, unlimited: 240, blockMs: 0 }), {
      control: c,
      combined: {
        ok: false,
        how: 'a cgroup',
        error: 'child 1 exited (code null, signal SIGKILL) before answering',
        highest: { rssBytes: 511 * MiB, at: 'the charts’ history load' },
      },
      plantSkipped: 'not run (--quick)',
    });
    const row = rows.find((r) => r.measure.includes('plus the control charts'));
    expect(row && rowPasses(row)).toBe(false);
    expect(row?.value).toBeUndefined();
    expect(row?.detail).toContain('SIGKILL');
    expect(row?.detail).toContain('511');
    // The plant was left out on purpose: not measured, said why, and not judged.
    const plant = rows.find((r) => r.measure.startsWith('15m station summaries'));
    expect(plant?.value).toBeUndefined();
    expect(plant?.detail).toBe('not run (--quick)');
    expect(plant && rowPasses(plant)).toBeUndefined();
  });
});
