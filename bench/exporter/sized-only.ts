/**
 * `npx tsx bench/exporter/sized-only.ts [--stations 559] [--runs 1] [--limit both|on|off]
 * [--node-arg FLAG]... [--env K=V]... [--idle-ms 5000] [--combined]`: only the RSS rows of `npm run bench` (the
 * exporter alone at about 100k series, under the StatefulSet's memory limit and without one),
 * each repeated `--runs` times, with every reading and where the memory sits
 * (bench/exporter/memory-detail.mjs). `--combined`: instead, the exporter plus the 5,000
 * control charts at the 7-day baseline under the limit (bench/exporter/combined.ts).
 * `--idle-ms`: the idle time after each poll (the full run's is 5 s; a real exporter idles the
 * rest of its poll interval). For working on the exporter's memory without running the whole benchmark on a shared machine.
 * 559 stations is what the full run picks for about 100,000 series. Prints JSON lines to stdout.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { SizedRunResult } from '../shared/protocol.ts';
import type { ControlBenchResult } from '../spc/control.ts';
import { COMBINED_CONTROL, runCombined } from './combined.ts';
import { memoryLimit, shippedMemoryLimitMiB } from './memory-limit.ts';
import { BENCH_NOW, BENCH_TOKEN, FULL } from './scale.ts';
import { startSimProcess } from './sim-process.ts';
import { maxRss, runSizedExporter } from './sized.ts';

const { values } = parseArgs({
  options: {
    stations: { type: 'string', default: '559' },
    runs: { type: 'string', default: '1' },
    limit: { type: 'string', default: 'both' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    env: { type: 'string', multiple: true, default: [] },
    combined: { type: 'boolean', default: false },
    'idle-ms': { type: 'string', default: '5000' },
  },
});
const env = Object.fromEntries(
  values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const conditions = values.limit === 'both' ? ['on', 'off'] : [values.limit];
const mib = (b: number) => Math.round(b / 2 ** 20);

function summary(r: SizedRunResult, condition: string, run: number) {
  const at = r.readings.find((x) => x.rssBytes === maxRss(r));
  return {
    condition,
    run,
    series: r.series,
    maxRssMiB: mib(maxRss(r)),
    minRssMiB: mib(Math.min(...r.readings.filter((x) => x.at !== 'start').map((x) => x.rssBytes))),
    cpuMs: r.cpuMs === undefined ? undefined : Math.round(r.cpuMs),
    cpuByReading: r.readings.map((x) => x.cpuMs),
    rssByReading: r.readings.map((x) => mib(x.rssBytes)),
    // Where each reading's RSS sits: malloc's main heap, other anonymous memory (V8's pages and
    // its pool), and V8's own count of its pages, MiB.
    partsByReading: r.readings.map((x) => partsOf((x as { detail?: unknown }).detail)),
    blockMs: r.blockMs?.map((x) => Math.round(x)),
    gc: r.gc && { ...r.gc, totalMs: Math.round(r.gc.totalMs), longestMs: Math.round(r.gc.longestMs) },
    load: loadavg().map((x) => Math.round(x * 10) / 10),
    at: at?.at,
    heapUsedMiB: at ? mib(at.heapUsedBytes) : undefined,
    heapTotalMiB: at ? mib(at.heapTotalBytes) : undefined,
    arrayBuffersMiB: at ? mib(at.arrayBuffersBytes) : undefined,
    detail: (at as { detail?: unknown } | undefined)?.detail,
    held: (at as { held?: unknown } | undefined)?.held,
  };
}

/** The parts of one reading's RSS (see bench/exporter/memory-detail.mjs). */
function partsOf(detail: unknown) {
  const d = (detail ?? {}) as { mainHeapMiB?: number; otherAnonMiB?: number; v8PhysicalMiB?: number };
  return [d.mainHeapMiB, d.otherAnonMiB, d.v8PhysicalMiB].map((v) =>
    v === undefined ? null : Math.round(v),
  );
}

/** The charts' figures without the per-poll arrays. */
function summarizeControl(c: ControlBenchResult) {
  const { pollMs, pollCpuMs, ...rest } = c;
  return { ...rest, pollMsMedian: [...pollMs].sort((a, b) => a - b)[pollMs.length >> 1] };
}

const sim = await startSimProcess({
  seed: FULL.seed,
  scale: FULL.scale,
  token: BENCH_TOKEN,
  nowMs: BENCH_NOW,
});
try {
  for (let run = 1; values.combined && run <= Number(values.runs); run++) {
    const r = await runCombined({
      sim,
      params: FULL,
      stations: Number(values.stations),
      steadyPolls: 3,
      idleMs: 5_000,
      limit: memoryLimit(shippedMemoryLimitMiB()),
      control: COMBINED_CONTROL,
      execArgv: values['node-arg'],
      env,
    });
    process.stdout.write(
      `${JSON.stringify(r.ok ? { ...r, run: { ...r.run, control: summarizeControl(r.run.control) } } : r)}\n`,
    );
  }
  for (let run = 1; !values.combined && run <= Number(values.runs); run++) {
    for (const condition of conditions) {
      const limit = condition === 'on' ? memoryLimit(shippedMemoryLimitMiB()) : undefined;
      const r = await runSizedExporter({
        sim,
        params: FULL,
        stations: Number(values.stations),
        steadyPolls: 3,
        idleMs: Number(values['idle-ms']),
        ...(limit ? { limit } : {}),
        execArgv: values['node-arg'],
        env,
      });
      process.stdout.write(`${JSON.stringify(summary(r, condition, run))}\n`);
    }
  }
} finally {
  await sim.close();
}
