/**
 * The simulator as a child process. The parent owns the simulated clock and moves it with
 * `set-now`; the child answers only after the new time is in effect, so the next poll is
 * guaranteed to see it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulator } from '../../src/simulator/index.ts';
import type { SimChildOptions, SimReply, SimRequest } from '../shared/protocol.ts';

/**
 * Idle keep-alive connections stay open this long, as behind a typical load balancer.
 * With Node's default of 5 s, while the one-thread simulator spends seconds on one large
 * answer, the idle timers of its other connections expire; they fire as soon as it looks up
 * again and close connections on which the exporter has already sent its next request
 * ("other side closed"), a failure that a real, multi-threaded upstream would not cause.
 */
const KEEP_ALIVE_TIMEOUT_MS = 75_000;

const opts = JSON.parse(process.argv[2] ?? '{}') as SimChildOptions;
let now = opts.nowMs;

function send(msg: SimReply): void {
  process.send?.(msg);
}

const sim = createSimulator({
  seed: opts.seed,
  scale: opts.scale,
  tokens: { [opts.token]: { sites: 'all' } },
  now: () => now,
});

const server = await new Promise<Server>((resolve, reject) => {
  const s = serve({ fetch: sim.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  s.once('error', reject);
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

process.on('message', (msg: SimRequest) => {
  if (msg.type === 'set-now') {
    now = msg.nowMs;
    send({ type: 'now-set', nowMs: now });
  } else if (msg.type === 'stats') {
    const requests = sim.requests.length;
    // The request log is only needed for counting; dropping it keeps the child's memory flat.
    sim.clearRequests();
    const cpu = process.cpuUsage();
    send({
      type: 'stats',
      rssBytes: process.memoryUsage().rss,
      requests,
      cpuMs: (cpu.user + cpu.system) / 1000,
    });
  }
});

// The parent going away (normally or not) ends the child: no orphaned simulator.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

send({
  type: 'ready',
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  stations: sim.plant.stations.length,
  measurementNames: sim.plant.measurementNames,
});
