/**
 * `npm run bench [-- --quick] [-- --runs N]`: the simulator at scale in a child process, the exporter
 * against it on a shared simulated clock, and one list of rows: poll cost, render time,
 * event-loop blocking, scrape throughput against a bare server, memory, the control charts and
 * the plant-scale request budget. A full run is repeated three times (`--runs`) and each row
 * is the median of its runs. The full run writes bench/results/exporter.json (and so
 * bench/RESULTS.md); `--quick` only prints its rows.
 */
import { parseArgs } from 'node:util';
import { runPlantScale } from '../plant/plant.ts';
import { PLANT_NOTE, plantRows } from '../plant/plant-report.ts';
import { runChild } from '../shared/child.ts';
import { describeMachine } from '../shared/machine.ts';
import { medianRows, type ResultRow, renderResultsMarkdown, writeResults } from '../shared/results.ts';
import { restartWithShippedSettings, runningSettings } from '../shared/shipped-settings.ts';
import type { ControlBenchResult } from '../spc/control.ts';
import { COMBINED_CONTROL, type CombinedOutcome, runCombined } from './combined.ts';
import { memoryLimit, shippedMemoryLimitMiB } from './memory-limit.ts';
import { measuredExporter } from './polls.ts';
import { type BenchResults, notesOf, setupOf } from './report.ts';
import { resultRows } from './rows.ts';
import { BENCH_NOW, BENCH_TOKEN, type BenchParams, FULL, QUICK, stationCount } from './scale.ts';
import { compareScrapes } from './scrape.ts';
import { type SimProcess, startSimProcess } from './sim-process.ts';
import { runSizedExporter } from './sized.ts';
import { runSyntheticChild } from './synthetic.ts';
import { targetRows } from './targets.ts';

// The exporter polled here runs with the binary's young-generation and malloc settings, as users'
// exporters do (the block and scrape rows depend on them). Its old-generation ceiling is raised:
// this exporter holds about 185k series, beyond the 100k the binary's ceiling is sized for.
restartWithShippedSettings(['--max-old-space-size=1024']);

/** The sized run: steady-state polls after the first, and the idle time after each poll. */
const SIZED_STEADY_POLLS = 3;
const SIZED_IDLE_MS = 5_000;

const isControlResult = (msg: unknown): msg is ControlBenchResult =>
  typeof msg === 'object' && msg !== null && 'pollMs' in msg;

/** The control charts of the memory targets at the run's size: 5 names on 1,000 stations (quick: the plant's). */
function controlSize(p: BenchParams): { stations: number; baselineHours: number } {
  return p.name === 'full' ? COMBINED_CONTROL : { ...COMBINED_CONTROL, stations: stationCount(p.scale) };
}

/** bench/spc/control.ts in a child process, at the default 7-day baseline. */
function runControl(p: BenchParams): Promise<ControlBenchResult> {
  const size = controlSize(p);
  progress(
    `control charts: ${size.stations} stations × 5 names, ${size.baselineHours}h baseline (own process)`,
  );
  return runChild(new URL('../spc/control-child.ts', import.meta.url), size, isControlResult);
}

function progress(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

/** First poll, one interval later a steady-state poll, then scrapes, with the main exporter. */
async function mainExporter(p: BenchParams, sim: SimProcess) {
  const m = measuredExporter(p, sim, p.windows);
  try {
    progress(`collectors: ${m.collectors.join(', ')}; first poll`);
    const first = await m.poll();
    await sim.advance(p.intervalMs);
    progress('steady-state poll');
    const steady = await m.poll();
    const memory = process.memoryUsage();
    const simStats = await sim.stats();
    const renders = new Map(m.renders());
    const series = m.exporter.cache.seriesCount();
    progress(`scrapes (${series} series)`);
    const scrapes = await compareScrapes(m.exporter.app, p);
    const scrapeMaxBlockMs = Math.max(0, ...scrapes.map((s) => s.maxBlockMs));
    return {
      collectors: m.collectors,
      first,
      steady,
      renders,
      series,
      memory,
      sim: { rssBytes: simStats.rssBytes, pid: sim.pid },
      scrapes,
      scrapeMaxBlockMs,
    };
  } finally {
    await m.exporter.close();
  }
}

/** The same first/steady pair with a shorter longest window, measurements only. */
async function compareExporter(p: BenchParams, sim: SimProcess) {
  const m = measuredExporter(p, sim, p.compareWindows, 'measurements');
  try {
    progress(`comparison exporter (windows ${p.compareWindows.join(', ')})`);
    const first = await m.poll();
    await sim.advance(p.intervalMs);
    const steady = await m.poll();
    return { first, steady };
  } finally {
    await m.exporter.close();
  }
}

/** One whole run of the bench: its rows, the setup and the notes that describe it. */
async function runOnce(p: BenchParams, options: { readonly plant: boolean }) {
  const startRssBytes = process.memoryUsage().rss;
  progress(`${p.name} run: ${stationCount(p.scale)} stations; starting the simulator`);
  const sim = await startSimProcess({ seed: p.seed, scale: p.scale, token: BENCH_TOKEN, nowMs: BENCH_NOW });
  let run: Awaited<ReturnType<typeof mainExporter>>;
  let compare: Awaited<ReturnType<typeof compareExporter>> | undefined;
  let sized: BenchResults['sized'];
  let combined: CombinedOutcome | undefined;
  try {
    run = await mainExporter(p, sim);
    if (run.collectors.includes('measurements')) compare = await compareExporter(p, sim);
    // The RSS target is for 100k series: run the exporter alone with about that many, as it
    // ships (under the StatefulSet's memory limit) and, for comparison, without a limit.
    const perStation = run.series / stationCount(p.scale);
    const stations = Math.min(stationCount(p.scale), Math.round(p.syntheticSeries / perStation));
    const limitMiB = shippedMemoryLimitMiB();
    const limit = memoryLimit(limitMiB);
    progress(
      `exporter alone at about ${p.syntheticSeries} series (${stations} stations), under ${limit.how}`,
    );
    const sizedRun = { sim, params: p, stations, steadyPolls: SIZED_STEADY_POLLS, idleMs: SIZED_IDLE_MS };
    const limited = await runSizedExporter({ ...sizedRun, limit });
    progress('exporter alone, without a memory limit');
    const unlimited = await runSizedExporter(sizedRun);
    sized = { limited, unlimited, limitMiB, how: limit.how };
    progress('exporter alone plus the control charts, under the memory limit');
    combined = await runCombined({ ...sizedRun, limit: memoryLimit(limitMiB), control: controlSize(p) });
  } finally {
    await sim.close();
  }
  // The cache-only process runs under the same limit as the exporter alone: the condition it ships in.
  const syntheticLimit = memoryLimit(shippedMemoryLimitMiB());
  progress(`synthetic render (${p.syntheticSeries} series), under ${syntheticLimit.how}`);
  const synthetic = await runSyntheticChild(p.syntheticSeries, 5, syntheticLimit);
  progress('synthetic render, without a memory limit');
  const syntheticUnlimited = await runSyntheticChild(p.syntheticSeries, 5);
  const results: BenchResults = {
    params: p,
    settings: runningSettings(),
    startRssBytes,
    ...run,
    ...(compare ? { compare } : {}),
    ...(sized ? { sized } : {}),
    synthetic,
    syntheticUnlimited,
  };
  const control = await runControl(p);
  const plants = [];
  if (options.plant) {
    for (const spec of [
      { stations: 1000 as const, units: true, measuredMinutes: 45 },
      // One refresh of the longest window measured at 5,000 stations, to keep a run near ten minutes.
      { stations: 5000 as const, units: false, measuredMinutes: 15 },
    ]) {
      progress(`plant scale: ${spec.stations} stations`);
      plants.push(await runPlantScale({ ...spec, progress }));
    }
  }
  const rows: ResultRow[] = [
    ...resultRows(results),
    ...targetRows(results, {
      control,
      ...(combined ? { combined } : {}),
      ...first15m(plants),
      ...(plants.length > 0
        ? {}
        : { plantSkipped: p.name === 'full' ? 'not run (--no-plant)' : 'not run (--quick)' }),
    }),
    ...(plants.length > 0 ? plantRows(plants) : []),
  ];
  return {
    rows,
    setup: setupOf(results),
    notes: [...notesOf(results), ...(plants.length > 0 ? [PLANT_NOTE] : [])],
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'no-plant': { type: 'boolean', default: false },
      runs: { type: 'string' },
    },
  });
  const p = values.quick ? QUICK : FULL;
  // Targets are judged on the median of three runs; a quick run is a smoke test of one.
  const runCount = Number(values.runs ?? (values.quick ? 1 : 3));
  if (!Number.isInteger(runCount) || runCount < 1)
    throw new Error(`--runs ${values.runs}: a whole number ≥ 1`);
  const startedAt = Date.now();
  const runs = [];
  for (let i = 0; i < runCount; i++) {
    if (runCount > 1) progress(`run ${i + 1} of ${runCount}`);
    runs.push(await runOnce(p, { plant: p.name === 'full' && !values['no-plant'] }));
  }
  const last = runs[runs.length - 1]!;
  const flags = [
    values.quick ? '--quick' : values['no-plant'] ? '--no-plant' : '',
    values.runs ? `--runs ${runCount}` : '',
  ]
    .filter((f) => f !== '')
    .join(' ');
  const bench = {
    name: 'exporter',
    title: 'Whole exporter',
    command: `npm run bench${flags === '' ? '' : ` -- ${flags}`}`,
    setup: `${runCount === 1 ? 'One run' : `The median of ${runCount} runs`}. ${last.setup}`,
    rows: medianRows(runs.map((r) => r.rows)),
    notes: last.notes,
  };
  if (p.name === 'full') {
    writeResults(bench, { startedAt });
    progress('written to bench/results/exporter.json and bench/RESULTS.md');
  } else {
    const now = new Date().toISOString();
    const machine = describeMachine();
    process.stdout.write(
      renderResultsMarkdown([
        {
          format: 1,
          ...bench,
          date: now,
          seconds: Math.round((Date.now() - startedAt) / 100) / 10,
          machine,
          pass: true,
        },
      ]),
    );
  }
}

/** The 1,000-station plant's 15m first-snapshot time, when the plant ran. */
function first15m(plants: readonly Awaited<ReturnType<typeof runPlantScale>>[]) {
  const seconds = plants.find((x) => x.stations === 1000)?.stationSummariesComplete?.['15m'];
  return seconds === undefined ? {} : { first15mSeconds: seconds };
}

await main();
