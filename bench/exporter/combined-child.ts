/**
 * The exporter alone at about 100k series, in one process with the 5,000 control charts of
 * bench/spc/control.ts (5 names on 1,000 stations, its rolling baseline + 1h window): the
 * target row "exporter plus control charts under the StatefulSet's memory limit". The
 * exporter polls the simulator (first poll, then steady-state polls on the simulated clock,
 * as bench/exporter/exporter-child.mjs does); once its first poll is done, the charts' history
 * is loaded and their polls run (runControlBench, imported, not copied) while the exporter's
 * steady-state polls go on: the history load of the charts' first poll is the peak to watch.
 *
 * Runs bundled as the exporter ships (bench/exporter/child-build.ts; the charts' bench is
 * TypeScript), on node alone: the exporter is wired from src/ bundled beside it, so that the
 * process holds one copy of the code. Sends `combined-rss` messages
 * while it runs, with where the memory sits at each new high, so that the parent still knows the
 * highest RSS if the memory limit kills the process.
 */
import pino from 'pino';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { CombinedRunArgs, CombinedRunResult, RssMark } from '../shared/protocol.ts';
import { runControlBench } from '../spc/control.ts';
import { memoryDetail } from './memory-detail.mjs';

const args = JSON.parse(process.argv[2] ?? '{}') as CombinedRunArgs;
let now = args.nowMs;
let phase = 'start';
let highest: RssMark = { rssBytes: process.memoryUsage.rss(), at: phase };

/** Where the memory sat at a high, read again once the RSS passes it by this much (smaps is slow). */
const DETAIL_STEP = 4 * 2 ** 20;
let detail: { readonly rssMiB: number; readonly memory: unknown } | undefined;

/** Reads the RSS; tells the parent when it is a new high, with where the memory sat near it. */
function sample(): void {
  const rss = process.memoryUsage.rss();
  if (rss <= highest.rssBytes) return;
  if (detail === undefined || rss >= detail.rssMiB * 2 ** 20 + DETAIL_STEP)
    detail = { rssMiB: Math.round(rss / 2 ** 20), memory: memoryDetail() };
  highest = { rssBytes: rss, at: phase, detail };
  process.send?.({ type: 'combined-rss', ...highest });
}

/** Asks the parent to move the simulator's clock by one interval; resolves with the new time. */
function advance(): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { type?: string; nowMs?: number }) => {
      if (m?.type !== 'now' || m.nowMs === undefined) return;
      process.off('message', onMessage);
      resolve(m.nowMs);
    };
    process.on('message', onMessage);
    process.send?.({ type: 'advance' });
  });
}

const idle = () => new Promise((r) => setTimeout(r, args.idleMs));
const timer = setInterval(sample, 100);
const config = configFromObject(args.config, { baseDir: process.cwd(), source: 'benchmark (combined run)' });
const exporter = wireExporter(config, {
  wallClock: () => now,
  logger: pino({ level: 'error' }, pino.destination(2)),
});
phase = 'the exporter’s first poll';
await exporter.scheduler.pollOnce();
sample();

async function steadyPolls(): Promise<void> {
  for (let poll = 1; poll <= args.steadyPolls; poll++) {
    now = await advance();
    await exporter.scheduler.pollOnce();
    sample();
    await idle();
    sample();
  }
}

phase = 'the charts’ history load and polls, beside the exporter’s steady-state polls';
const [control] = await Promise.all([
  runControlBench(args.control.stations, args.control.baselineHours),
  steadyPolls(),
]);
sample();
clearInterval(timer);
const result: CombinedRunResult = {
  type: 'combined-run',
  stations: args.config.discovery.station_ids.length,
  series: exporter.cache.seriesCount(),
  highest:
    control.loadingPeakRss > highest.rssBytes
      ? { rssBytes: control.loadingPeakRss, at: 'the charts’ history load (sampled by control.ts)', detail }
      : highest,
  control,
};
await exporter.close();
process.send?.(result);
process.disconnect?.();
