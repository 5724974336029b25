/**
 * `/metrics` throughput and latency of the exporter, side by side with a bare `node:http`
 * server that answers the same bytes from memory: the ratio shows what the exporter's
 * scrape path (routing, negotiation, self-metrics tail, gzip splice) costs on top of
 * simply writing the body.
 *
 * The event-loop block of the scrapes ({@link ScrapeRow.maxBlockMs}) is measured only while the
 * load runs, during the exporter's turns: the bench's own capture and check of the bodies
 * (reading, gunzip, compare) and forking its children come before, so that the figure is the
 * exporter's scrape path (answering, the self-metrics tail, its gzip, the writes). The bare
 * server answers in this process too, so that the ratio compares the two paths under the same
 * heap; its answers are single writes of whole bodies held in memory (31.5 MB plain at 1,000
 * stations), which the exporter does not do, so blocks in its turns are reported apart
 * ({@link ScrapeRow.bareMaxBlockMs}), never as the exporter's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { request } from 'undici';
import { forkTs, isMessage, nextMessage, stopChild } from '../shared/child.ts';
import { type LoopMonitor, startLoopMonitor } from '../shared/loop-delay.ts';
import type { LoadResult, LoadSpec } from '../shared/protocol.ts';
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
  /** Worst event-loop block of this process during the exporter's turns of the load (warm-up included). */
  readonly maxBlockMs: number;
  /** The same during the bare server's turns. */
  readonly bareMaxBlockMs: number;
}

const isLoadResult = isMessage<{ type: 'load'; results: LoadResult[] }>('load');

const isTurn = isMessage<{ type: 'turn'; target: number }>('turn');

/** Worst event-loop block per server: a monitor of its own for each turn, charged to the server whose turn it is. */
class TurnBlocks {
  readonly worst: number[];
  #server = -1;
  #monitor: LoopMonitor | undefined;

  constructor(servers: number) {
    this.worst = new Array<number>(servers).fill(0);
  }

  /** A turn of `server` begins: the previous turn's block is charged to its server. */
  turn(server: number): void {
    this.stop();
    this.#server = server;
    this.#monitor = startLoopMonitor();
  }

  stop(): void {
    if (this.#monitor !== undefined && this.#server >= 0)
      this.worst[this.#server] = Math.max(this.worst[this.#server] ?? 0, this.#monitor.maxBlockMs());
    this.#monitor?.stop();
    this.#monitor = undefined;
  }
}

/** Runs the load generator (bench/load/loadgen-child.ts) and measures the event loop in each server's turns. */
async function measuredLoad(
  spec: LoadSpec,
): Promise<{ results: LoadResult[]; maxBlockMs: readonly number[] }> {
  const child = forkTs(new URL('../load/loadgen-child.ts', import.meta.url), spec);
  const blocks = new TurnBlocks(spec.urls.length);
  child.on('message', (msg) => {
    if (isTurn(msg)) blocks.turn(msg.target);
  });
  try {
    const { results } = await nextMessage(child, isLoadResult);
    blocks.stop();
    return { results, maxBlockMs: blocks.worst };
  } finally {
    blocks.stop();
    await stopChild(child);
  }
}

/** Prometheus asks for the text format; gzip is its default. */
const HEADERS = {
  plain: { accept: 'text/plain;version=0.0.4' },
  gzip: { accept: 'text/plain;version=0.0.4', 'accept-encoding': 'gzip' },
} as const;

interface Captured {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}/metrics`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function capture(url: string, headers: Record<string, string>): Promise<Captured> {
  const res = await request(url, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`GET ${url}: status ${res.statusCode}`);
  const kept: Record<string, string> = {};
  for (const name of ['content-type', 'content-encoding', 'vary', 'cache-control']) {
    const v = res.headers[name];
    if (typeof v === 'string') kept[name] = v;
  }
  return { body, headers: kept };
}

/** A server that answers every request with one of two fixed bodies, chosen like the exporter does. */
function bareServer(plain: Captured, gzip: Captured): Server {
  return createServer((req, res) => {
    const chosen = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') ? gzip : plain;
    res.writeHead(200, { ...chosen.headers, 'content-length': chosen.body.length });
    res.end(chosen.body);
  });
}

/**
 * Bytes at the end of a body left out of the comparison: the self-metrics tail (about 11 KiB),
 * which differs between two scrapes more than a second apart (scrape counters, durations), as
 * two captures of a large body on a loaded machine can be.
 */
const TAIL_SLACK = 64 * 1024;

/** The gzip body must decode to the plain one, up to the per-scrape self-metrics tail. */
function checkSameExposition(plain: Captured, gzip: Captured): void {
  const decoded = gunzipSync(gzip.body);
  const head = Math.min(plain.body.length, decoded.length) - TAIL_SLACK;
  if (
    Math.abs(decoded.length - plain.body.length) > TAIL_SLACK ||
    decoded.compare(plain.body, 0, head, 0, head)
  ) {
    throw new Error(
      'the gzip scrape does not decode to the plain scrape: the benchmark would compare apples and pears',
    );
  }
}

/** Serves `app` on loopback and compares it with the bare server, plain and gzip. */
export async function compareScrapes(app: Hono, p: BenchParams): Promise<ScrapeRow[]> {
  const served = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  const exporterUrl = await new Promise<string>((resolve) => {
    const ready = () => resolve(`http://127.0.0.1:${(served.address() as AddressInfo).port}/metrics`);
    if (served.listening) ready();
    else served.once('listening', ready);
  });
  const plain = await capture(exporterUrl, HEADERS.plain);
  const gzip = await capture(exporterUrl, HEADERS.gzip);
  checkSameExposition(plain, gzip);
  const bare = bareServer(plain, gzip);
  const bareUrl = await listen(bare);
  try {
    const rows: ScrapeRow[] = [];
    for (const encoding of ['plain', 'gzip'] as const) {
      const { results, maxBlockMs } = await measuredLoad({
        ...p.load,
        headers: HEADERS[encoding],
        urls: [exporterUrl, bareUrl],
      });
      const [ex, b] = results;
      if (!ex || !b) throw new Error('the load generator returned fewer results than servers');
      const bodyBytes = (encoding === 'gzip' ? gzip : plain).body.length;
      rows.push({
        encoding,
        bodyBytes,
        exporter: ex,
        bare: b,
        ratio: roundRatio(ex, b),
        maxBlockMs: maxBlockMs[0] ?? 0,
        bareMaxBlockMs: maxBlockMs[1] ?? 0,
      });
    }
    return rows;
  } finally {
    await close(bare);
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
