/**
 * The exporter alone in a process of its own, as it ships: plain node on one bundle, built as
 * dist/cli.js is (bench/exporter/child-build.ts; no TypeScript loader in the process), so that
 * its RSS is the product's. It gets its config
 * from the benchmark, runs a first poll and then steady-state polls one interval apart on the
 * simulated clock (it asks the parent to move the simulator's clock before each), idles a
 * while after each poll as an exporter does between polls, and reports every RSS reading.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import pino from 'pino';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { memoryDetail } from './memory-detail.mjs';

const args = JSON.parse(process.argv[2] ?? '{}');
let now = args.nowMs;

/** Asks the parent to move the simulator's clock by one interval; resolves with the new time. */
function advance() {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.type !== 'now') return;
      process.off('message', onMessage);
      resolve(m.nowMs);
    };
    process.on('message', onMessage);
    process.send({ type: 'advance' });
  });
}

const readings = [];
const cpuAtStart = process.cpuUsage();
/** CPU time (user + system) since the child started, ms: per poll, the difference of two readings. */
function cpuSoFar() {
  const c = process.cpuUsage(cpuAtStart);
  return Math.round((c.user + c.system) / 1000);
}
let exporter;
function read(at) {
  const m = process.memoryUsage();
  readings.push({
    at,
    rssBytes: m.rss,
    heapUsedBytes: m.heapUsed,
    heapTotalBytes: m.heapTotal,
    arrayBuffersBytes: m.arrayBuffers,
    detail: memoryDetail(),
    held: exporter?.cache.heldBytes(),
    cpuMs: cpuSoFar(),
  });
  // For finding where memory sits: every mapping of this reading, to a file of its own.
  if (process.env.BENCH_SMAPS_DIR)
    writeFileSync(
      `${process.env.BENCH_SMAPS_DIR}/${process.pid}-${readings.length}.smaps`,
      readFileSync('/proc/self/smaps'),
    );
}

const config = configFromObject(args.config, { baseDir: process.cwd(), source: 'benchmark (sized run)' });
exporter = wireExporter(config, {
  wallClock: () => now,
  logger: pino({ level: 'warn' }, pino.destination(2)),
});
read('start');
// What a memory setting costs: CPU time and V8's pauses, from the first poll on.
const gc = { count: 0, totalMs: 0, longestMs: 0 };
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.totalMs += e.duration;
    gc.longestMs = Math.max(gc.longestMs, e.duration);
  }
});
gcObserver.observe({ entryTypes: ['gc'] });
// The worst event-loop block of each poll, computed as bench/shared/loop-delay.ts computes it
// for the full run (that module is TypeScript, and this child loads no TypeScript: its RSS is
// the product's). Without that module's extra turn after the poll, so that the RSS reading
// still comes right after it: a block in the poll's very last turn may go unrecorded.
const LOOP_RESOLUTION_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
const blockMs = [];
const cpu0 = process.cpuUsage();
for (let poll = 0; poll <= args.steadyPolls; poll++) {
  if (poll > 0) now = await advance();
  loop.reset();
  loop.enable();
  await exporter.scheduler.pollOnce();
  loop.disable();
  blockMs.push(loop.count === 0 ? 0 : Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS));
  const name = poll === 0 ? 'first poll' : `steady poll ${poll}`;
  read(`after the ${name}`);
  await new Promise((r) => setTimeout(r, args.idleMs));
  read(`${args.idleMs / 1000} s after the ${name}`);
}
const cpu = process.cpuUsage(cpu0);
gcObserver.disconnect();
const result = {
  type: 'sized-run',
  cpuMs: (cpu.user + cpu.system) / 1000,
  gc,
  blockMs,
  stations: args.config.discovery.station_ids.length,
  series: exporter.cache.seriesCount(),
  steadyPolls: args.steadyPolls,
  idleMs: args.idleMs,
  readings,
};
await exporter.close();
process.send?.(result);
process.disconnect?.();
