/**
 * A hostile sites answer against the exporter as a user runs it (the built CLI): `/sites` at the
 * default 8 MiB body cap, two sites of about 4 MiB holding 2.8 million `{}` elements. Each item
 * is under the 4 MiB item cap, so only the cap on values inside an item refuses it before it is
 * parsed. Meanwhile `/-/healthy` is probed: the process must keep answering, where it used to
 * stall for seconds (parse and check of each site in one block) at every discovery refresh.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ITEM_BYTES } from '../../src/upstream/envelope.ts';

const BIN = path.resolve('bin/station-exporter.js');
const BODY_CAP = 8 * 1024 * 1024;

const hex = (n: number) => n.toString(16).padStart(24, '0');

/** One site whose only line holds `count` empty elements. */
function hostileSite(n: number, count: number): string {
  const elements = new Array<string>(count).fill('{}').join(',');
  return `{"id":"${hex(n)}","name":"S${n}","description":"","lines":[{"id":"${hex(100 + n)}","name":"L","description":"","elements":[${elements}]}]}`;
}

const ELEMENTS_PER_SITE = 1_390_000;
const SITES_BODY = Buffer.from(
  `{"data":[${hostileSite(1, ELEMENTS_PER_SITE)},${hostileSite(2, ELEMENTS_PER_SITE)}],"message":"ok"}`,
);

let upstream: Server;
let upstreamUrl: string;
let sitesServed = 0;
let dir: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/sites') {
      sitesServed++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': SITES_BODY.length });
      res.end(SITES_BODY);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"code":"NOT_FOUND","message":"no such resource"}}');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(tmpdir(), 'hostile-topology-'));
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
});

interface Run {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args]);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(run: Run, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = run.output().match(pattern);
    if (m) return m;
    if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; output:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Milliseconds `/-/healthy` took to answer 200, or the timeout when it did not. */
async function probe(url: string, timeoutMs: number): Promise<number> {
  const t = performance.now();
  try {
    const res = await fetch(`${url}/-/healthy`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.text();
    return res.status === 200 ? performance.now() - t : timeoutMs;
  } catch {
    return timeoutMs;
  }
}

/** The value of the sites requests counted as `too_large` in an exposition, 0 when absent. */
function tooLargeSites(exposition: string): number {
  const line = exposition
    .split('\n')
    .find((l) =>
      /^station_exporter_upstream_requests_total\{(?=.*endpoint="sites")(?=.*status_class="too_large").*\} /.test(
        l,
      ),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('a /sites answer of millions of empty elements', () => {
  it('is refused as too_large before it is parsed, and /-/healthy answers throughout', async () => {
    // The shape of the report: under the body cap, each item under the item cap, far over the values cap.
    expect(SITES_BODY.length).toBeLessThanOrEqual(BODY_CAP);
    expect(hostileSite(1, ELEMENTS_PER_SITE).length).toBeLessThanOrEqual(MAX_ITEM_BYTES);

    const cfg = path.join(dir, 'hostile.yaml');
    writeFileSync(
      cfg,
      [
        'upstream:',
        `  base_url: ${upstreamUrl}`,
        '  token: hostile-test-token',
        '  retry: { max_attempts: 1 }',
        'windows: ["1h"]',
      ].join('\n'),
    );
    const run = start(['--config', cfg, '--web.listen-address', '127.0.0.1:0']);
    const probes: number[] = [];
    let counted = 0;
    let output = '';
    try {
      const url = (await waitFor(run, /metrics at (http:\/\/[^\s]+)\/metrics/))[1] ?? '';
      // Probe until the refusal is counted, and a while after it (the whole answer's decoding).
      const until = Date.now() + 20_000;
      while (Date.now() < until) {
        probes.push(await probe(url, 5_000));
        const metrics = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => r.text(),
          () => '',
        );
        counted = tooLargeSites(metrics);
        if (counted > 0 && probes.length >= 10) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      run.child.kill('SIGTERM');
      // A process stuck in a block exits late: never wait for it past the test's own bound.
      const late = setTimeout(() => run.child.kill('SIGKILL'), 12_000);
      await run.exited;
      clearTimeout(late);
      output = run.output();
    }
    // A wide margin: the old decoding held the event loop for 5 to 8 s per site (its probes
    // time out at 5 s); the bounded steps take milliseconds, and the slowest probe read 100 to
    // 860 ms only on a 2-core host at load 19.
    expect(Math.max(...probes)).toBeLessThan(3_000);
    expect(sitesServed).toBeGreaterThanOrEqual(1);
    expect(counted).toBeGreaterThanOrEqual(1);
    expect(output).toContain('sites: one item of data holds more than 100000 values');
  }, 90_000);
});
