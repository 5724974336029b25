/**
 * Soak run (`npm run soak`, not part of `npm test`): the exporter on a real clock with 5 s
 * intervals for at least 10 minutes, behind the fault proxy, with topology churn (stations
 * hidden from /sites and shown again), faults switched on and off, and concurrent gzip
 * scrapes. The process runs with the heap and allocator settings the binary gives the exporter
 * (src/util/heap-ceiling.ts: it starts itself again with them, as bin/station-exporter.js does),
 * so that the RSS measured is the RSS a user's exporter has. RSS is sampled every second; the
 * verdict compares the last third's mean RSS with the middle third's (within 5 %: no growth after
 * warm-up). A second is well under the fault cycle, so the means are not at the mercy of where a
 * few samples fall on the RSS sawtooth of answers and scrapes (with one sample every 30 s, seven
 * samples a third made the means move by several per cent from run to run). RSS, heap and array
 * buffers are printed every 30 s and drawn as a curve in bench/results/soak.json's SVG.
 *
 *   npm run soak                 # 11 minutes, writes bench/results/soak.json (and bench/RESULTS.md)
 *   npm run soak -- --minutes 2  # a short look, prints only
 */
import { serve } from '@hono/node-server';
import pino from 'pino';
import { request } from 'undici';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { forkTs, nextMessage, stopChild } from '../shared/child.ts';
import type { ProxyFaults } from '../shared/fault-proxy.ts';
import { type BenchResults, writeResults } from '../shared/results.ts';
import { restartWithShippedSettings, runningSettings } from '../shared/shipped-settings.ts';

// The binary's heap and allocator settings, applied as bin/station-exporter.js applies them.
restartWithShippedSettings();

const args = process.argv.slice(2);
const minutes = Number(args[args.indexOf('--minutes') + 1] ?? 11) || 11;
const write = !args.includes('--minutes') || minutes >= 10;
/** How often RSS is sampled for the verdict, and how often a row is printed. */
const SAMPLE_MS = 1_000;
const ROW_MS = 30_000;
// Every third of the run sees the whole cycle of faults, so that the thirds compare alike.
const FAULT_MS = 15_000;
const CHURN_MS = 20_000;
const SCRAPERS = 8;
const TOKEN = 'soak-token';

interface Upstream {
  url: string;
  stations: string[];
  names: string[];
}
const child = forkTs(new URL('./soak-upstream.ts', import.meta.url), TOKEN);
const upstream = await nextMessage(
  child,
  (m): m is Upstream => typeof m === 'object' && m !== null && 'url' in m,
);
const proxy = { set: (f: ProxyFaults) => child.send(f) };
const stations = upstream.stations;
const config = configFromObject(
  {
    upstream: {
      base_url: upstream.url,
      token: TOKEN,
      concurrency: 8,
      max_requests_per_second: 200,
      timeout: '2s',
      retry: { max_attempts: 3, base_delay: '100ms', max_delay: '3s' },
      circuit_breaker: { failure_threshold: 5, probe_interval: '5s' },
      max_response_bytes: 4 * 1024 * 1024,
    },
    discovery: { refresh_interval: '10s' },
    windows: ['15m', '1h'],
    summary: { interval: '5s' },
    measurements: { enabled: true, interval: '5s', names: upstream.names.slice(0, 4) },
    units: { interval: '5s' },
    log: { level: 'warn' },
  },
  { baseDir: process.cwd(), source: 'soak' },
);
const logLines = { n: 0 };
const logger = pino({ level: 'warn' }, { write: () => void logLines.n++ });
const exporter = wireExporter(config, { logger });
const server = serve({ fetch: exporter.app.fetch, hostname: '127.0.0.1', port: 0 });
await new Promise((r) => server.once('listening', r));
const port = (server.address() as { port: number }).port;
exporter.scheduler.start();

const FAULTS: Array<[string, ProxyFaults]> = [
  ['none', {}],
  ['all 503', { status: 503 }],
  ['none', {}],
  ['429 Retry-After 2', { status: 429, retryAfter: '2' }],
  ['none', {}],
  ['latency 3 s', { latencyMs: 3000 }],
  ['none', {}],
  ['resets', { reset: true, paths: ['/metrics', '/units'] }],
  ['none', {}],
  ['403 on 4 stations', { refuse: stations.slice(0, 4) }],
  ['none', {}],
  ['drift: renamed fields', { drift: 'renamed-fields' }],
  ['none', {}],
  ['oversized answers', { oversizeBytes: 5 * 1024 * 1024, paths: ['/station'] }],
];
let faultIndex = 0;
let hidden: string[] = [];
const current = (): ProxyFaults => ({ ...FAULTS[faultIndex % FAULTS.length]![1], hideStations: hidden });

let scrapes = 0;
let scrapeErrors = 0;
const latencies: number[] = [];
let running = true;
async function scraper(): Promise<void> {
  while (running) {
    const t = performance.now();
    try {
      const res = await request(`http://127.0.0.1:${port}/metrics`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) scrapeErrors++;
      scrapes++;
      latencies.push(performance.now() - t);
    } catch {
      scrapeErrors++;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
const scraping = Array.from({ length: SCRAPERS }, scraper);

interface Sample {
  t: number;
  rss: number;
  heap: number;
  /** Array buffers (Buffers included): memory outside the V8 heap that JavaScript holds. */
  arrayBuffers: number;
  fault: string;
  series: number;
}
const samples: Sample[] = [];
const started = Date.now();
const mb = (b: number) => Math.round((b / 1048576) * 10) / 10;
const faultTimer = setInterval(() => {
  faultIndex++;
  proxy.set(current());
}, FAULT_MS);
const churnTimer = setInterval(() => {
  // A rotating fifth of the stations leaves the topology, and comes back at the next turn.
  const k = Math.floor(Math.random() * 5);
  hidden = stations.filter((_, i) => i % 5 === k);
  proxy.set(current());
}, CHURN_MS);
/** RSS every second, for the verdict. */
const rssSamples: number[] = [];
const sampleTimer = setInterval(() => rssSamples.push(process.memoryUsage.rss()), SAMPLE_MS);
const rowTimer = setInterval(() => {
  const m = process.memoryUsage();
  const s = {
    t: Math.round((Date.now() - started) / 1000),
    rss: m.rss,
    heap: m.heapUsed,
    arrayBuffers: m.arrayBuffers,
    fault: FAULTS[faultIndex % FAULTS.length]![0],
    series: exporter.cache.seriesCount(),
  };
  samples.push(s);
  process.stderr.write(
    `soak: ${s.t}s rss ${mb(s.rss)} MB heap ${mb(s.heap)} MB buffers ${mb(s.arrayBuffers)} MB series ${s.series} (${s.fault})\n`,
  );
}, ROW_MS);

await new Promise((r) => setTimeout(r, minutes * 60_000));
running = false;
for (const t of [faultTimer, churnTimer, sampleTimer, rowTimer]) clearInterval(t);
await Promise.all(scraping);
await exporter.close();
server.close();
await stopChild(child);

const third = Math.floor(rssSamples.length / 3);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
const middle = mean(rssSamples.slice(third, 2 * third));
const last = mean(rssSamples.slice(2 * third));
const change = ((last - middle) / middle) * 100;
latencies.sort((a, b) => a - b);
const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
const results: BenchResults = {
  name: 'soak',
  title: 'Soak under faults and topology churn',
  command: `npm run soak${minutes === 11 ? '' : ` -- --minutes ${minutes}`}`,
  setup:
    `${minutes} minutes on a real clock: 5 s intervals (summary, measurements, units), discovery every 10 s, 40 stations ` +
    `behind the fault proxy; faults switch every ${FAULT_MS / 1000} s (${FAULTS.map(([name]) => name).join(', ')}), a fifth ` +
    `of the stations leaves and comes back every ${CHURN_MS / 1000} s; ${SCRAPERS} concurrent gzip scrapers. The exporter ` +
    `runs with the binary's heap and allocator settings (${runningSettings()}).`,
  rows: [
    {
      measure: 'Mean RSS, last third of the run against the middle third (change, either way)',
      value: Math.abs(change),
      unit: '%',
      detail: `${change >= 0 ? '+' : ''}${change.toFixed(2)} %: ${mb(middle)} MiB then ${mb(last)} MiB (${rssSamples.length} samples, one a second)`,
      target: { op: '<=', bound: 5 },
    },
    { measure: 'Scrapes', value: scrapes, unit: 'requests', detail: `p99 ${p99.toFixed(1)} ms` },
    { measure: 'Scrapes failed', value: scrapeErrors, unit: 'requests', target: { op: '<=', bound: 0 } },
    { measure: 'Log lines at warn and above', value: logLines.n, unit: 'lines' },
  ],
  curves: [
    {
      id: 'memory',
      title: 'Memory of the exporter through the soak',
      x: { label: 'time (s)' },
      y: { label: 'MiB' },
      series: [
        { name: 'RSS', points: samples.map((x) => [x.t, mb(x.rss)] as const) },
        { name: 'V8 heap used', points: samples.map((x) => [x.t, mb(x.heap)] as const) },
        { name: 'array buffers', points: samples.map((x) => [x.t, mb(x.arrayBuffers)] as const) },
      ],
    },
  ],
  notes: [
    'Simulator and fault proxy run in a child process: RSS is the exporter’s, with tsx and the soak driver.',
    'The verdict compares mean RSS over thirds of the run: no growth after warm-up. Each third sees the whole cycle of faults.',
  ],
};
for (const x of samples) {
  process.stdout.write(
    `${x.t} s: RSS ${mb(x.rss)} MiB, heap ${mb(x.heap)} MiB, series ${x.series} (${x.fault})\n`,
  );
}
process.stdout.write(`RSS change ${change.toFixed(2)} %, scrapes ${scrapes}, errors ${scrapeErrors}\n`);
if (write) writeResults(results, { startedAt: started });
process.exit(Math.abs(change) <= 5 ? 0 : 1);
