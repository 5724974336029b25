/**
 * Micro-benchmark of the control-chart engine (src/spc), not a test:
 *
 *   npx tsx bench/spc/spc.ts
 *
 * Times one poll of 1,000 charts (src/spc ControlChart, the class the measurements collector
 * uses; rules only, no CUSUM or EWMA) of 500 points each, one point a minute, after the points
 * were added and a first poll took them in: a 7d rolling baseline (all points older than the
 * evaluation window) and an evaluation window of the newest 100 points, plus the worst case of
 * evaluating all 500 points against given limits. Prints the fastest and the median of several
 * rounds, and the extrapolation to the reference plant (5 names on 1,000 stations per poll).
 */
import { performance } from 'node:perf_hooks';
import { type ChartSpec, ControlChart, NELSON_RULES } from '../../src/spc/index.ts';

const SERIES = 1000;
const POINTS = 500;
const ROUNDS = 15;
const MIN = 60_000;
const NOW = Date.UTC(2025, 2, 3, 12, 0, 0);

/** A series: ascending times (Unix ms) and their values. */
interface Series {
  readonly times: Float64Array;
  readonly values: Float64Array;
}

/** Deterministic normal values (mulberry32 + Box-Muller), with a drift in some series. */
function makeSeries(seed: number): Series {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const times = new Float64Array(POINTS);
  const values = new Float64Array(POINTS);
  const drift = seed % 4 === 0 ? 0.01 : 0;
  for (let i = 0; i < POINTS; i++) {
    times[i] = NOW - (POINTS - 1 - i) * MIN;
    const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    values[i] = 3.3 + 0.02 * z + drift * Math.max(0, i - 400) * 0.02;
  }
  return { times, values };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function measure(label: string, series: Series[], spec: ChartSpec): number {
  const charts = series.map((s) => {
    const chart = new ControlChart({
      spec,
      detectors: {
        cusum: { enabled: false, k: 0.5, h: 5, fir: false },
        ewma: { enabled: false, lambda: 0.1, L: 3 },
      },
      holdMs: 0,
      overlapMs: 0,
    });
    for (const [i, t] of s.times.entries()) chart.add(t, s.values[i]!);
    return chart;
  });
  let outOfControl = 0;
  let evaluated = 0;
  let cpu = 0;
  const round = (): number => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    outOfControl = 0;
    for (const chart of charts) {
      const o = chart.evaluate({ nowMs: NOW, complete: true });
      evaluated = o.evaluated;
      if (o.limits !== undefined && Array.from(o.counts).some((c) => c > 0)) outOfControl++;
    }
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpu = (c.user + c.system) / 1000;
    return wall;
  };
  for (let i = 0; i < 3; i++) round();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpus: number[] = [];
  const times = Array.from({ length: ROUNDS }, () => {
    const wall = round();
    cpus.push(cpu);
    return wall;
  });
  const heapAfter = process.memoryUsage().heapUsed;
  // The minimum is the least disturbed by other processes on a shared machine; the median
  // and the CPU time show how much they disturbed it.
  const ms = Math.min(...times);
  console.log(
    `| ${label} | ${evaluated} | ${ms.toFixed(2)} | ${median(times).toFixed(2)} | ${median(cpus).toFixed(1)} | ` +
      `${((ms * 1e6) / (SERIES * POINTS)).toFixed(1)} | ` +
      `${(ms * 5).toFixed(1)} | ${outOfControl} | ${((heapAfter - heapBefore) / 1024).toFixed(0)} |`,
  );
  return ms;
}

const series = Array.from({ length: SERIES }, (_, i) => makeSeries(i + 1));
const base = { minSamples: 25, rules: NELSON_RULES, compensate: true };
console.log(`node ${process.version}, ${SERIES} series of ${POINTS} points, ${ROUNDS} rounds\n`);
console.log(
  '| Case | evaluated points per series | ms per 1,000 series (min) | (median) | CPU ms (median) | ns per point (min) | ms per poll (5 × 1,000 series) | series out of control | heap growth over all rounds (KiB) |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
measure('rolling 7d baseline (400 points), newest 100 evaluated', series, {
  ...base,
  baseline: { kind: 'rolling', durationMs: 7 * 86_400_000 },
  evaluationWindowMs: 100 * MIN,
});
measure('given limits, all 500 evaluated', series, {
  ...base,
  baseline: { kind: 'given', center: 3.3, ucl: 3.36, lcl: 3.24 },
  evaluationWindowMs: POINTS * MIN,
});
