/**
 * Runs an exporter against a simulator on a loopback socket, both on one fixed clock, so
 * that end-to-end tests are deterministic and need no sleeps.
 */
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../src/simulator/types.ts';

/** A Saturday noon, away from any DST change. */
export const FIXED_NOW = Date.parse('2026-11-21T12:34:56.000Z');

export interface Harness {
  readonly sim: RunningSimulator;
  readonly exporter: Exporter;
  readonly config: Config;
  /** Moves the shared clock. */
  advance(ms: number): void;
  now(): number;
  close(): Promise<void>;
}

/** Starts a simulator and wires an exporter to it; `config` is merged into a minimal base. */
export async function startHarness(
  opts: {
    sim?: SimulatorOptions;
    config?: Record<string, unknown>;
    upstream?: Record<string, unknown>;
    logger?: Logger;
  } = {},
): Promise<Harness> {
  let now = FIXED_NOW;
  const clock = () => now;
  const sim = await startSimulatorServer({ seed: 7, ...opts.sim, now: clock });
  const config = configFromObject(
    {
      upstream: {
        base_url: sim.url,
        token: 'demo-token',
        max_requests_per_second: 10_000,
        concurrency: 8,
        ...opts.upstream,
      },
      ...opts.config,
    },
    { baseDir: process.cwd(), source: 'test harness' },
  );
  const exporter = wireExporter(config, {
    wallClock: clock,
    logger: opts.logger ?? pino({ level: 'silent' }),
  });
  return {
    sim,
    exporter,
    config,
    advance: (ms) => {
      now += ms;
    },
    now: clock,
    async close() {
      await exporter.close();
      await sim.close();
    },
  };
}

/** The collector data as scraped in the text format, without the (timing-dependent) self-metrics. */
export async function dataExposition(
  exporter: Exporter,
  format: 'text' | 'openmetrics' = 'text',
): Promise<string> {
  return (await exporter.cache.respond(format, [])).body.toString('utf8');
}

/** The `data` of a simulator API answer, asked with the demo token (the simulator's own view, not the exporter's). */
export async function simulatorData<T>(url: string): Promise<T[]> {
  const res = await fetch(url, { headers: { authorization: 'Bearer demo-token' } });
  if (res.status !== 200) throw new Error(`the simulator answered ${res.status} to ${url}`);
  return ((await res.json()) as { data: T[] }).data;
}

/** An exporter's app served on loopback, for a real Prometheus to scrape. */
export class ScrapeTarget {
  #server: ServerType | undefined;

  /** Serves `fetch` (an exporter's `app.fetch`) on a free port of 127.0.0.1; returns host:port. */
  async serve(fetch: Parameters<typeof serve>[0]['fetch']): Promise<string> {
    const port = await new Promise<number>((resolve) => {
      this.#server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve(info.port),
      );
    });
    return `127.0.0.1:${port}`;
  }

  /** Stops serving (nothing to do when it never served). */
  async close(): Promise<void> {
    await new Promise<void>((r) => (this.#server ? this.#server.close(() => r()) : r()));
  }
}
