/**
 * `npm run bench:limits-file`: what reading a large approved-limits file costs the exporter. A
 * file of `--entries` charts (10,000 by default) is written by the study's writer, then read
 * `--runs` times each way: by the loader on the event loop (how the collector read it at each
 *  changed poll before), and as the collector reads it now (ApprovedLimits.refresh, the loader in
 * a worker thread). For each: the time until the file is in use, the CPU it takes, and
 * the worst event-loop block meanwhile, which is what a scrape arriving then would wait.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { type LimitsEntry, limitsYaml } from '../../src/app/limits/file.ts';
import { ApprovedLimits } from '../../src/collectors/measurements/approved-limits.ts';
import { loadLimitsFile } from '../../src/config/limits-schema.ts';
import { arg } from '../shared/args.ts';
import { LOOP_RESOLUTION_MS, withLoopMonitor } from '../shared/loop-delay.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';

const ENTRIES = Number(arg('entries', '10000'));
const RUNS = Number(arg('runs', '3'));
/**
 * The longest a scrape may wait behind a limits reload: the bound every event-loop block of the
 * exporter is held to (bench/exporter/targets.ts), far inside Prometheus' 10 s scrape timeout.
 */
const BLOCK_TARGET_MS = 100;

/** A study's entry as `limits study` writes it: one exclusion, approved. */
function entry(i: number): LimitsEntry {
  const station = (0x65a1f0c2e4b0a1b2c3d4e5f6n + BigInt(Math.floor(i / 20))).toString(16).padStart(24, '0');
  return {
    station,
    metric: `name_${i % 20}`,
    slot: null,
    product: null,
    center: 3.3 + i * 1e-6,
    sigma: 0.0121,
    ucl: 3.3363 + i * 1e-6,
    lcl: 3.2637 + i * 1e-6,
    study: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z', points: 5040, excluded_points: 12 },
    excluded: [{ from: '2026-11-03T10:00:00Z', to: '2026-11-03T11:30:00Z', cause: 'fixture 2 swapped' }],
    approved_by: 'j.doe',
    approved_at: '2026-11-09T09:00:00Z',
    reason: 'initial Phase I study',
  };
}

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly loopCpuMs: number;
  readonly maxBlockMs: number;
  /** The longest garbage-collection pause of the event-loop thread meanwhile. */
  readonly gcMs: number;
}

/** A full garbage collection (the flag is set here, so the bench needs no node option). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/**
 * Runs `load` under a loop monitor: its wall time, the process's CPU time, the worst block.
 * Each run starts from a collected heap, so that no run pays for the garbage of the one before
 * (or of the writer's YAML document).
 */
async function measure(load: () => Promise<unknown>): Promise<Run> {
  collectGarbage();
  let run: Omit<Run, 'maxBlockMs' | 'gcMs'> | undefined;
  const { maxBlockMs, longestGc } = await withLoopMonitor(async () => {
    // The monitor's first tick only sets its baseline: a block before it would go unseen.
    await new Promise((r) => setTimeout(r, 3 * LOOP_RESOLUTION_MS));
    const cpu = process.cpuUsage();
    const loopCpu = process.threadCpuUsage();
    const start = performance.now();
    await load();
    const used = process.cpuUsage(cpu);
    const loopUsed = process.threadCpuUsage(loopCpu);
    run = {
      wallMs: performance.now() - start,
      cpuMs: (used.user + used.system) / 1000,
      loopCpuMs: (loopUsed.user + loopUsed.system) / 1000,
    };
  });
  if (run === undefined) throw new Error('the load did not run');
  return { ...run, maxBlockMs, gcMs: longestGc.ms };
}

function rowsOf(label: string, runs: readonly Run[], blockTarget: boolean): ResultRow[] {
  const row = (measure: string, pick: (r: Run) => number, unit: string, extra: Partial<ResultRow> = {}) => {
    const values = runs.map(pick);
    return { measure: `${label}: ${measure}`, value: median(values), unit, runs: values, ...extra };
  };
  return [
    row('time until the file is in use', (r) => r.wallMs, 'ms'),
    row('CPU of the process, every thread', (r) => r.cpuMs, 'ms'),
    row('CPU of the event-loop thread', (r) => r.loopCpuMs, 'ms'),
    row('worst event-loop block', (r) => r.maxBlockMs, 'ms', {
      // A block also holds the time the thread waited for a core: the host's load says how much.
      detail: `longest garbage-collection pause of the thread ${Math.max(...runs.map((r) => r.gcMs)).toFixed(0)} ms; host load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores at the end of the runs`,
      ...(blockTarget ? { target: { op: '<=', bound: BLOCK_TARGET_MS } } : {}),
    }),
  ];
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-limits-'));
  try {
    const path = join(dir, 'limits.yaml');
    const text = limitsYaml({ version: 1, charts: Array.from({ length: ENTRIES }, (_, i) => entry(i)) });
    writeFileSync(path, text);
    process.stderr.write(`limits-file: ${ENTRIES} entries, ${(text.length / 2 ** 20).toFixed(1)} MiB\n`);

    // The thread first: the loader's runs on the event loop leave their garbage in this heap,
    // and its collection would be counted to the thread's receipt.
    const inThread: Run[] = [];
    for (let r = 0; r < RUNS; r++) {
      const limits = new ApprovedLimits(path, pino({ level: 'silent' }));
      inThread.push(
        await measure(async () => {
          if ((await limits.refresh()) !== 'loaded') throw new Error('the limits file did not load');
        }),
      );
    }
    process.stderr.write(
      `limits-file: in a thread ${inThread.map((r) => r.wallMs.toFixed(0)).join(', ')} ms\n`,
    );

    const onLoop: Run[] = [];
    for (let r = 0; r < RUNS; r++) onLoop.push(await measure(() => loadLimitsFile(path)));
    process.stderr.write(
      `limits-file: on the event loop ${onLoop.map((r) => r.wallMs.toFixed(0)).join(', ')} ms\n`,
    );

    const file = writeResults(
      {
        name: 'limits-file',
        title: 'Reading a large approved-limits file',
        command: `npm run bench:limits-file -- --entries=${ENTRIES} --runs=${RUNS}`,
        setup: `A limits file of ${ENTRIES.toLocaleString('en-US')} approved entries (${(text.length / 2 ** 20).toFixed(1)} MiB, one exclusion each) written by the study's writer, read ${RUNS} times by the loader on the event loop and ${RUNS} times by the collector's ApprovedLimits.refresh, which reads it in a worker thread.`,
        rows: [
          ...rowsOf('Loader on the event loop', onLoop, false),
          ...rowsOf('Collector (worker thread)', inThread, true),
        ],
        notes: [
          'Worst event-loop block: the longest delay of a 10 ms timer while the file was read, less its interval (perf_hooks.monitorEventLoopDelay); a scrape arriving then waits that long. It includes the time the host left the thread without a core, so on a busy machine it exceeds the thread’s CPU time; the thread’s CPU time is the code’s share.',
          'CPU of the event-loop thread: process.threadCpuUsage; in a thread, the receipt of the entries (JSON texts of 1,000, parsed one per turn of the event loop), the limits file built from them, and the collection of that garbage.',
          'CPU: process.cpuUsage over the read, which counts every thread: the thread moves the parse off the event loop but does not make it cheaper (it adds the thread’s start and loading the loader’s modules into it).',
          'Nearly all of the parse is the yaml package building its syntax tree (about 90 % of the profile with its garbage collection; zod about 5 %), linear in the file’s size.',
        ],
      },
      { startedAt },
    );
    for (const r of file.rows) process.stdout.write(`${r.measure}: ${r.value?.toFixed(0)} ${r.unit}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
