/**
 * The bench's side of the scrape comparison, in a process of its own: it scrapes the exporter
 * once plain and once with gzip, checks that both carry the same exposition, and serves those
 * bytes from memory as the bare `node:http` server the exporter is compared with. Reading,
 * inflating and comparing bodies of several MiB, and the bare server's writes, would otherwise
 * run in the exporter's process and count in its event-loop block (bench/exporter/scrape.ts).
 * Sends {@link BareReady} over IPC once it listens; exits when the parent disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { type BareReady, type BareSpec, SCRAPE_HEADERS } from './bare-protocol.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as BareSpec;

interface Captured {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
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

/**
 * Bytes at the end of a body left out of the comparison: the self-metrics tail (about 11 KiB),
 * which differs between two scrapes more than a second apart (scrape counters, durations).
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
    let at = 0;
    while (at < head && decoded[at] === plain.body[at]) at++;
    throw new Error(
      `the gzip scrape does not decode to the plain scrape (${decoded.length} vs ${plain.body.length} bytes, ` +
        `first difference at ${at}: ${JSON.stringify(decoded.subarray(at, at + 80).toString())} vs ` +
        `${JSON.stringify(plain.body.subarray(at, at + 80).toString())}): the benchmark would compare apples and pears`,
    );
  }
}

const plain = await capture(spec.exporterUrl, SCRAPE_HEADERS.plain);
const gzip = await capture(spec.exporterUrl, SCRAPE_HEADERS.gzip);
checkSameExposition(plain, gzip);

/** Answers every request with one of the two bodies, chosen like the exporter does. */
const server = createServer((req, res) => {
  const chosen = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') ? gzip : plain;
  res.writeHead(200, { ...chosen.headers, 'content-length': chosen.body.length });
  res.end(chosen.body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const ready: BareReady = {
    type: 'bare',
    url: `http://127.0.0.1:${port}/metrics`,
    plainBytes: plain.body.length,
    gzipBytes: gzip.body.length,
  };
  process.send?.(ready);
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
