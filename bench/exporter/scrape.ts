/**
 * `/metrics` throughput and latency of the exporter, side by side with a bare `node:http`
 * server that answers the same bytes from memory: the ratio shows what the exporter's
 * scrape path (routing, negotiation, self-metrics tail, gzip splice) costs on top of
 * simply writing the body.
 *
 * Only the exporter runs in this process while the scrapes are measured: the load generator,
 * and the bench's own capture, check and bare server (bench/exporter/bare-child.ts), run in
 * child processes, so that the event-loop block measured meanwhile ({@link ScrapeRow.maxBlockMs},
 * from each load's start to its results) is the exporter's own (answering, the self-metrics
 * tail, its gzip, the writes), not the bench's.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { forkTs, nextMessage, stopChild } from '../shared/child.ts';
import { startLoopMonitor } from '../shared/loop-delay.ts';
import type { LoadResult, LoadSpec } from '../shared/protocol.ts';
import { type BareSpec, isBareReady, SCRAPE_HEADERS } from './bare-protocol.ts';
import type { BenchParams } from './scale.ts';

/** One encoding, measured against both servers. */
export interface ScrapeRow {
  readonly encoding: 'plain' | 'gzip';
  /** Body bytes of one scrape as sent (compressed for gzip). */
  readonly bodyBytes: number;
  readonly exporter: LoadResult;
  readonly bare: LoadResult;
  /**
   * Exporter requests per second over bare-server requests per second: the median over the
   * rounds of the two servers' rates in that round, so that one disturbed round does not decide.
   */
  readonly ratio: number;
  /**
   * Worst event-loop block of this process while the load ran (from the load generator's start to
   * its results; forking it, a bench cost, is left out): the exporter's own scrape path.
   */
  readonly maxBlockMs: number;
}

const isLoadResult = (msg: unknown): msg is { type: 'load'; results: LoadResult[] } =>
  typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === 'load';

/** Runs the load generator (bench/load/loadgen-child.ts) and measures the event loop meanwhile. */
async function measuredLoad(spec: LoadSpec): Promise<{ results: LoadResult[]; maxBlockMs: number }> {
  const child = forkTs(new URL('../load/loadgen-child.ts', import.meta.url), spec);
  const monitor = startLoopMonitor();
  try {
    const { results } = await nextMessage(child, isLoadResult);
    return { results, maxBlockMs: monitor.maxBlockMs() };
  } finally {
    monitor.stop();
    await stopChild(child);
  }
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Serves `app` on loopback and compares it with the bare server, plain and gzip. */
export async function compareScrapes(app: Hono, p: BenchParams): Promise<ScrapeRow[]> {
  const served = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  const exporterUrl = await new Promise<string>((resolve) => {
    const ready = () => resolve(`http://127.0.0.1:${(served.address() as AddressInfo).port}/metrics`);
    if (served.listening) ready();
    else served.once('listening', ready);
  });
  const spec: BareSpec = { exporterUrl };
  const child = forkTs(new URL('./bare-child.ts', import.meta.url), spec);
  try {
    const bare = await nextMessage(child, isBareReady);
    const rows: ScrapeRow[] = [];
    for (const encoding of ['plain', 'gzip'] as const) {
      const { results, maxBlockMs } = await measuredLoad({
        ...p.load,
        headers: SCRAPE_HEADERS[encoding],
        urls: [exporterUrl, bare.url],
      });
      const [ex, b] = results;
      if (!ex || !b) throw new Error('the load generator returned fewer results than servers');
      const bodyBytes = encoding === 'gzip' ? bare.gzipBytes : bare.plainBytes;
      rows.push({ encoding, bodyBytes, exporter: ex, bare: b, ratio: roundRatio(ex, b), maxBlockMs });
    }
    return rows;
  } finally {
    await stopChild(child);
    await close(served);
  }
}

/** Median over the rounds of the exporter's rate over the bare server's in the same round. */
export function roundRatio(exporter: LoadResult, bare: LoadResult): number {
  const ratios = exporter.roundRates
    .map((r, i) => r / (bare.roundRates[i] ?? Number.NaN))
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
  if (ratios.length === 0) return 0;
  const mid = ratios.length / 2;
  return ratios.length % 2 === 1
    ? (ratios[Math.floor(mid)] ?? 0)
    : ((ratios[mid - 1] ?? 0) + (ratios[mid] ?? 0)) / 2;
}
