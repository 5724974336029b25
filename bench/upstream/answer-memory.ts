/**
 * Memory of decoding one record answer: RSS and heap before, at the peak and after, for a
 * realistic `/metrics` answer (about 330 bytes a record) or a hostile one (`{}` items), through
 * the real client over a local socket. The answer is built and served by a child process, so
 * the measuring process holds nothing but what decoding costs; one answer per run.
 *
 *   PATH=node_modules/.bin:$PATH NODE_OPTIONS=--expose-gc tsx bench/upstream/answer-memory.ts <MiB> [realistic|empty] [client|whole] [answers at once]

 * (`node_modules/.bin` first: the pinned Node 24; `--expose-gc`: a clean baseline.)
 *
 * `whole` is the old way, for comparison: the body read as one text, JSON.parse of it whole, then
 * the mapping.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createClient } from '../../src/upstream/client.ts';
import { Limiter } from '../../src/upstream/limiter.ts';
import { parseMeasurements } from '../../src/upstream/parse.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

const MiB = 1024 * 1024;
const mib = Number(process.argv[2] ?? 16);
const kind = process.argv[3] ?? 'realistic';
const mode = process.argv[4] ?? 'client';
/** Answers decoded at once (the client's record answers in hand: the upstream concurrency). */
const answers = Number(process.argv[5] ?? 1);

function record(i: number): string {
  return JSON.stringify({
    station_id: (0x5f0000000000000000000000n + BigInt(i % 500)).toString(16).padStart(24, '0'),
    slot: `S${i % 4}`,
    unit_serial: `SN-${String(100_000_000 + i)}`,
    time_created: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
    tz: '+01:00',
    mode: 'production',
    tags: ['line-a', 'shift-2'],
    name: `measurement_${i % 40}`,
    value: (12 + (i % 1000) / 1000).toFixed(4),
    unit: 'V',
    type: 'num',
    limit_upper: '13.5',
    limit_lower: '11.0',
    time_inserted: new Date(Date.UTC(2026, 10, 1) + i * 1000 + 1500).toISOString(),
  });
}

function body(): { bytes: Buffer; items: number } {
  const target = mib * MiB;
  if (kind === 'empty') {
    const n = Math.floor(target / 3);
    return { bytes: Buffer.from(`{"data":[${'{},'.repeat(n - 1)}{}],"message":"ok"}`), items: n };
  }
  const parts: string[] = [];
  let size = 30;
  let i = 0;
  while (size < target) {
    const r = record(i++);
    parts.push(r);
    size += r.length + 1;
  }
  return { bytes: Buffer.from(`{"data":[${parts.join(',')}],"message":"ok"}`), items: i };
}

const mb = (n: number) => Math.round(n / MiB);

if (process.argv[6] === 'serve') {
  const { bytes, items } = body();
  const server = createServer((_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port, items, bodyBytes: bytes.length });
  });
} else {
  const child = fork(process.argv[1]!, [String(mib), kind, mode, String(answers), 'serve'], {
    execArgv: process.execArgv,
  });
  const { port, items, bodyBytes } = await new Promise<{ port: number; items: number; bodyBytes: number }>(
    (r) => child.once('message', (m) => r(m as { port: number; items: number; bodyBytes: number })),
  );
  const url = `http://127.0.0.1:${port}/metrics`;
  globalThis.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 2);
  let outcome = 'ok';
  let records = 0;
  // Held until the end, so the heap after counts the mapped records.
  let kept: unknown;
  if (mode === 'whole') {
    const res = await request(url);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    const data = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: unknown }).data;
    chunks.length = 0;
    kept = await parseMeasurements(data, new LoopYielder());
  } else {
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: () => 't',
      timeoutMs: 600_000,
      maxResponseBytes: () => 1024 * MiB,
      recordAnswersInHand: answers,
      limiter: new Limiter({ concurrency: answers, ratePerSecond: Number.POSITIVE_INFINITY }),
    });
    const lists = await Promise.all(
      Array.from({ length: answers }, (_, i) =>
        client
          .forCollector(`collector-${i}`)
          .metrics({})
          .catch((err: { reason?: string }) => {
            outcome = err.reason ?? String(err);
            return undefined;
          }),
      ),
    );
    kept = lists[0];
    await client.close();
  }
  records = (kept as { records?: unknown[] } | undefined)?.records?.length ?? 0;
  clearInterval(sampler);
  const m0 = process.memoryUsage();
  peakRss = Math.max(peakRss, m0.rss);
  peakHeap = Math.max(peakHeap, m0.heapUsed);
  globalThis.gc?.();
  const m = process.memoryUsage();
  child.kill();
  console.log(
    JSON.stringify({
      mib,
      kind,
      mode,
      answers,
      bodyBytes,
      items,
      outcome,
      records,
      rssBeforeMiB: mb(before.rss),
      rssPeakMiB: mb(peakRss),
      rssAddedMiB: mb(peakRss - before.rss),
      heapPeakMiB: mb(peakHeap),
      addedRssPerBodyByte: Number(((peakRss - before.rss) / bodyBytes).toFixed(2)),
      heapPerRecordBytes: records > 0 ? Math.round((m.heapUsed - before.heapUsed) / records) : undefined,
    }),
  );
  process.exit(0);
}
