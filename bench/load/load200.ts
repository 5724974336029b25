/**
 * 200 concurrent keep-alive scrapers on /metrics (`npm run bench:load200`): an exporter with
 * about 11,000 series (200 stations), loaded by a child process holding 200 connections for 5 s,
 * plain and gzip, against the exporter and against a bare node:http server answering the same
 * bytes (the anchor). Writes bench/results/load200.json (and so bench/RESULTS.md).
 */
import pino from 'pino';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { startSimulatorServer } from '../../src/simulator/server.ts';
import { BENCH_NOW, BENCH_TOKEN, exporterConfigObject, FULL } from '../exporter/scale.ts';
import { compareScrapes, type ScrapeRow } from '../exporter/scrape.ts';
import { arg } from '../shared/args.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';
import { throughput } from './loadgen.ts';

const params = {
  ...FULL,
  scale: { ...FULL.scale, sites: 2, linesPerSite: 10, stationsPerLine: 10, measurementNames: 4 },
  load: {
    connections: 200,
    rounds: 4,
    durationMs: 5_000,
    maxRequests: 500_000,
    warmupRequests: 2,
    warmupMs: 0,
  },
};
const startedAt = Date.now();
const sim = await startSimulatorServer({
  seed: 7,
  now: () => BENCH_NOW,
  scale: params.scale,
  tokens: { [BENCH_TOKEN]: { sites: 'all' } },
});
const names = sim.sim.plant.measurementNames;
// Summary and units over 1h and 24h, measurements off: a plant of 200 stations without its charts.
const raw = exporterConfigObject(params, sim.url, names, ['1h', '24h']);
const config = configFromObject(
  { ...raw, measurements: { enabled: false } },
  {
    baseDir: process.cwd(),
    source: 'load200',
  },
);
const exporter = wireExporter(config, { wallClock: () => BENCH_NOW, logger: pino({ level: 'warn' }) });
await exporter.scheduler.pollOnce();
await exporter.scheduler.pollOnce();
const series = exporter.cache.seriesCount();
process.stderr.write(`load200: ${series} series; loading\n`);
// Targets are judged on the median of the runs (`--runs=3`); each run is a whole set of rounds.
const runCount = Math.max(1, Number(arg('runs', '1')) || 1);
const runs: ScrapeRow[][] = [];
for (let i = 0; i < runCount; i++) {
  if (runCount > 1) process.stderr.write(`load200: run ${i + 1} of ${runCount}\n`);
  runs.push(await compareScrapes(exporter.app, params));
}
await exporter.close();
await sim.close();
const rows = runs[runs.length - 1]!;
/** The figure `pick` of the row at `index` in every run, and their median. */
const across = (index: number, pick: (r: ScrapeRow) => number) => {
  const values = runs.map((run) => pick(run[index]!));
  return { value: median(values), runs: values };
};

const fmt = (r: (typeof rows)[number]['exporter']) =>
  `${throughput(r).toFixed(0)}/s, p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, max ${r.latencyMs.max.toFixed(0)} ms, errors ${r.errors}`;
const resultRows: ResultRow[] = rows.flatMap((r, i): ResultRow[] => [
  {
    measure: `Throughput over a bare server's, ${r.encoding} (${(r.bodyBytes / 1024).toFixed(0)} KiB body)`,
    ...across(i, (x) => x.ratio),
    unit: '×',
    detail: `last run: exporter ${fmt(r.exporter)}; bare node:http ${fmt(r.bare)}`,
  },
  {
    measure: `p99 latency, ${r.encoding}`,
    ...across(i, (x) => x.exporter.latencyMs.p99),
    unit: 'ms',
    detail: `last run: bare node:http ${r.bare.latencyMs.p99.toFixed(1)} ms`,
  },
  {
    measure: `Failed requests, ${r.encoding}`,
    ...across(i, (x) => x.exporter.errors),
    unit: 'requests',
    target: { op: '<=', bound: 0 },
  },
]);
writeResults(
  {
    name: 'load200',
    title: '200 concurrent keep-alive scrapers',
    command: `npm run bench:load200${runCount > 1 ? ` -- --runs=${runCount}` : ''}`,
    setup:
      `${series.toLocaleString('en-US')} series (200 stations, windows 1h and 24h, summary and units); 200 keep-alive ` +
      'connections from a child process for 5 s, each with one request in flight, in 4 alternating rounds against the ' +
      'exporter and against a bare node:http server answering the same bytes from memory (the anchor).',
    rows: resultRows,
    notes: ['A ratio is the exporter’s requests per second over the bare server’s, median over the rounds.'],
  },
  { startedAt },
);
for (const r of rows)
  process.stdout.write(
    `${r.encoding}: exporter ${fmt(r.exporter)}; bare ${fmt(r.bare)}; ratio ${r.ratio.toFixed(2)}\n`,
  );
