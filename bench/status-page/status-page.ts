/**
 * `npx tsx bench/status-page/status-page.ts`: builds and renders the status page for a plant of 1,000
 * stations (the simulator's topology, every station with a last unit time, 50 recent errors)
 * and prints the first (cold), median, p95 and worst of 50 renders. Target: under 200 ms.
 */
import pino from 'pino';
import { RecentErrors } from '../../src/app/recent-errors.ts';
import { buildStatusModel } from '../../src/app/status-model.ts';
import { topologyCollector } from '../../src/collectors/topology/index.ts';
import { configFromObject } from '../../src/config/load.ts';
import { statusPage } from '../../src/server/status-page.ts';
import { UNSHARDED } from '../../src/sharding/shard.ts';
import { startSimulatorServer } from '../../src/simulator/index.ts';
import { createClient } from '../../src/upstream/client.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const sim = await startSimulatorServer({
  now: () => NOW,
  hostileNames: true,
  scale: { sites: 4, linesPerSite: 10, stationsPerLine: 25 },
});
const config = configFromObject(
  { upstream: { base_url: sim.url, token: 'demo-token' } },
  { baseDir: process.cwd(), source: 'bench' },
);
const client = createClient({ baseUrl: sim.url, token: () => 'demo-token', timeoutMs: 10_000 });
const job = topologyCollector.createJob({
  config,
  client,
  logger: pino({ level: 'silent' }),
  redact: (text) => text,
  shard: UNSHARDED,
});
const { topology } = await job.poll({ now: new Date(NOW) });
const errors = new RecentErrors(50, () => NOW);
for (let i = 0; i < 200; i++)
  errors.record(
    new UpstreamError('units', 'status', { message: `units: HTTP 403 <b>#${i}</b>`, status: 403 }),
  );
const model = () =>
  buildStatusModel({
    version: 'bench',
    upstream: sim.url,
    wallClock: () => NOW,
    status: () => [
      { name: 'units', intervalMs: 60_000, polls: 3, lastOk: true, lastSuccessMs: NOW, lastDurationMs: 900 },
    ],
    topology: () => topology,
    ready: () => true,
    lastUnitTime: (id) => NOW - (Number.parseInt(id.slice(0, 6), 16) % 3_600_000),
    errors,
    refused: () => topology.stations.slice(0, 10).map((s) => s.id),
  });
const times: number[] = [];
let bytes = 0;
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  bytes = statusPage(model()).length;
  times.push(performance.now() - t);
}
const first = times[0]!;
times.sort((a, b) => a - b);
process.stdout.write(
  `status page: ${topology.stations.length} stations, ${topology.lines.length} lines, ${(bytes / 1024).toFixed(0)} KiB; ` +
    `model + render: first (cold) ${first.toFixed(1)} ms, median ${times[25]!.toFixed(1)} ms, ` +
    `p95 ${times[47]!.toFixed(1)} ms, worst ${times[49]!.toFixed(1)} ms (target < 200 ms)\n`,
);
await client.close();
await sim.close();
