/**
 * The exporter alone in a process of its own, limited to enough stations for about the
 * target's series count, so that its RSS is measured at that size and not polluted by the
 * main run. Two polls on a fixed clock (the second one steady-state), then it reports.
 */
import pino from 'pino';
import { wireExporter } from '../src/app/wire.ts';
import { configFromObject } from '../src/config/load.ts';
import type { SizedRunArgs, SizedRunResult } from './protocol.ts';
import { BENCH_TOKEN, exporterConfigObject } from './scale.ts';

interface SitesBody {
  data: Array<{
    lines: Array<{ elements: Array<{ id: string; type: string; stations?: Array<{ id: string }> }> }>;
  }>;
}

async function firstStations(url: string, n: number): Promise<string[]> {
  const res = await fetch(`${url}/sites`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  const body = (await res.json()) as SitesBody;
  const ids = body.data.flatMap((s) =>
    s.lines.flatMap((l) =>
      l.elements.flatMap((e) => (e.type === 'group' ? (e.stations ?? []).map((x) => x.id) : [e.id])),
    ),
  );
  return ids.slice(0, n);
}

/** How long the exporter idles after its polls before the memory reading (a poll interval is longer). */
const IDLE_MS = 15_000;

const args = JSON.parse(process.argv[2] ?? '{}') as SizedRunArgs;
const stationIds = await firstStations(args.url, args.stations);
const raw = exporterConfigObject(args.params, args.url, args.names, args.params.windows);
const config = configFromObject(
  { ...raw, discovery: { station_ids: stationIds } },
  { baseDir: process.cwd(), source: 'benchmark (sized run)' },
);
const exporter = wireExporter(config, {
  wallClock: () => args.nowMs,
  logger: pino({ level: 'warn' }, pino.destination(2)),
});
await exporter.scheduler.pollOnce();
await exporter.scheduler.pollOnce();
const rssAfterPollBytes = process.memoryUsage().rss;
// Right after the polls, V8 still holds the heap it grew for parsing the first poll's answers;
// an exporter spends nearly all its time idle between polls, where V8 gives that memory back.
await new Promise((r) => setTimeout(r, IDLE_MS));
const memory = process.memoryUsage();
const result: SizedRunResult = {
  type: 'sized-run',
  stations: stationIds.length,
  series: exporter.cache.seriesCount(),
  idleMs: IDLE_MS,
  rssAfterPollBytes,
  rssBytes: memory.rss,
  heapUsedBytes: memory.heapUsed,
  heapTotalBytes: memory.heapTotal,
  arrayBuffersBytes: memory.arrayBuffers,
};
await exporter.close();
process.send?.(result);
process.disconnect?.();
