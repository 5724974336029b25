import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulator, type Simulator } from './create.ts';
import type { SimulatorOptions } from './types.ts';

/** Options of {@link startSimulatorServer}. */
export interface SimulatorServerOptions extends SimulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** A simulator listening on a socket. */
export interface RunningSimulator {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  sim: Simulator;
  /** Stops listening and drops open connections, which also ends hanging requests. */
  close(): Promise<void>;
}

/** Starts a simulator on a real socket, for tests, benchmarks and the exporter's embedded default. */
export function startSimulatorServer(opts: SimulatorServerOptions = {}): Promise<RunningSimulator> {
  const { port = 0, host = '127.0.0.1', ...simOpts } = opts;
  const sim = createSimulator(simOpts);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: sim.app.fetch, port, hostname: host }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        sim,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
