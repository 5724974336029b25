/**
 * The client against a small hostile upstream (node:http on 127.0.0.1): retries with
 * Retry-After, refusals never retried, the circuit breaker, 401 token renewal, the body
 * ceiling (also after decompression), the total deadline against a slow drip, and schema
 * drift turned into typed errors or skipped records, and hostile bodies (corrupt gzip, too many
 * items, a huge error message). Backoff waits run on injected timers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Breakers } from '../../src/upstream/breaker.ts';
import { createClient } from '../../src/upstream/client.ts';
import { MAX_ERROR_MESSAGE, MAX_UPSTREAM_TEXT, UpstreamError } from '../../src/upstream/errors.ts';
import type { RequestEvent } from '../../src/upstream/layers.ts';
import { Limiter } from '../../src/upstream/limiter.ts';
import { backoffMs, parseRetryAfter, type RetryTimers } from '../../src/upstream/retry.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function hostile(handler: Handler) {
  let n = 0;
  const seen: Array<{ url: string; auth: string | undefined }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    handler(req, res, n++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Timers whose waits end at once but are recorded, so no test sleeps through a backoff. */
function instantTimers(): RetryTimers & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => 0,
    random: () => 0.5,
    setTimeout: (fn, ms) => {
      waits.push(ms);
      return setImmediate(fn);
    },
    clearTimeout: (h) => clearImmediate(h as NodeJS.Immediate),
  };
}

const ok = (data: unknown) => JSON.stringify({ data, message: 'ok', meta: {} });
/** Answers with a JSON body: the status alone, or the status with more headers. */
const json = (
  res: ServerResponse,
  head: number | { status: number; headers: Record<string, string> },
  body: string,
) => {
  const { status, headers } = typeof head === 'number' ? { status: head, headers: {} } : head;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};
const ERR = JSON.stringify({ error: { code: 'X', message: 'injected' } });

function client(url: string, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  const events: RequestEvent[] = [];
  const timers = instantTimers();
  const c = createClient({
    baseUrl: url,
    token: () => 'tok',
    timeoutMs: 2000,
    retry: { maxAttempts: 3, baseMs: 100, maxDelayMs: 5000 },
    retryTimers: timers,
    ...extra,
    observer: { request: (e) => events.push(e), ...extra.observer },
  });
  closers.push(() => c.close());
  return { c, events, timers };
}

describe('retries', () => {
  it('honours Retry-After on 429, counts 429 as its own class, then succeeds', async () => {
    const up = await hostile((_q, res, n) =>
      n === 0 ? json(res, { status: 429, headers: { 'retry-after': '2' } }, ERR) : json(res, 200, ok([])),
    );
    const { c, events, timers } = client(up.url);
    await expect(c.listSites()).resolves.toMatchObject({ records: [] });
    expect(timers.waits).toEqual([2000]);
    expect(events.map((e) => e.statusClass)).toEqual(['429', '2xx']);
  });

  it('backs off with full jitter on 503 and gives up after max_attempts', async () => {
    const up = await hostile((_q, res) => json(res, 503, ERR));
    const { c, timers } = client(up.url);
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'status', status: 503 });
    expect(up.seen).toHaveLength(3);
    // random 0.5 of the ceilings 100 and 200 ms.
    expect(timers.waits).toEqual([50, 100]);
  });

  it.each([400, 401, 403, 404])('never retries %i', async (status) => {
    const up = await hostile((_q, res) => json(res, status, ERR));
    const { c } = client(up.url);
    await expect(c.listSites()).rejects.toBeInstanceOf(UpstreamError);
    expect(up.seen).toHaveLength(1);
  });

  it('retries a connection reset', async () => {
    const up = await hostile((req, res, n) => (n === 0 ? req.socket.destroy() : json(res, 200, ok([]))));
    const { c, events } = client(up.url);
    await expect(c.listSites()).resolves.toMatchObject({ records: [] });
    expect(events.map((e) => e.statusClass)).toContain('2xx');
  });

  it('reads Retry-After as seconds or as an HTTP date, and computes full-jitter ceilings', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('10', now)).toBe(10_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    const policy = { maxAttempts: 5, baseMs: 100, maxDelayMs: 1000 };
    expect(backoffMs(0, policy, () => 0.999)).toBe(99);
    expect(backoffMs(5, policy, () => 0.999)).toBe(999);
  });

  it('does not wait for a Retry-After longer than max_delay', async () => {
    const up = await hostile((_q, res) =>
      json(res, { status: 429, headers: { 'retry-after': '3600' } }, ERR),
    );
    const { c } = client(up.url);
    await expect(c.listSites()).rejects.toMatchObject({ status: 429 });
    expect(up.seen).toHaveLength(1);
  });
});

describe('circuit breaker', () => {
  it('opens after repeated failures, sends nothing while open, probes, and closes on success', async () => {
    let healthy = false;
    const up = await hostile((_q, res) => (healthy ? json(res, 200, ok([])) : json(res, 500, ERR)));
    let now = 0;
    const changes: string[] = [];
    const breakers = new Breakers({
      threshold: 3,
      probeIntervalMs: 10_000,
      now: () => now,
      onChange: (e, s) => changes.push(`${e}:${s}`),
    });
    const { c } = client(up.url, { breakers, retry: { maxAttempts: 1, baseMs: 0, maxDelayMs: 0 } });
    for (let i = 0; i < 3; i++) await expect(c.listSites()).rejects.toMatchObject({ status: 500 });
    expect(changes).toEqual(['sites:open']);
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'circuit_open' });
    expect(up.seen).toHaveLength(3);
    now = 10_000;
    healthy = true;
    await expect(c.listSites()).resolves.toMatchObject({ records: [] });
    expect(changes).toEqual(['sites:open', 'sites:half_open', 'sites:closed']);
    expect(changes.at(-1)).toBe('sites:closed');
  });
});

describe('token renewal', () => {
  it('re-reads the token once on a 401 and sends again with the new one', async () => {
    const up = await hostile((req, res) =>
      req.headers.authorization === 'Bearer new' ? json(res, 200, ok([])) : json(res, 401, ERR),
    );
    let renewals = 0;
    const { c } = client(up.url, {
      renewToken: async () => {
        renewals++;
        return 'new';
      },
    });
    await expect(c.listSites()).resolves.toMatchObject({ records: [] });
    expect(renewals).toBe(1);
    expect(up.seen.map((s) => s.auth)).toEqual(['Bearer tok', 'Bearer new']);
  });
});

describe('body limits and deadlines', () => {
  const big = ok([{ id: 'x'.repeat(10_000) }]);

  it('stops reading an answer over max_response_bytes', async () => {
    const up = await hostile((_q, res) => json(res, 200, big));
    const { c, events } = client(up.url, { maxResponseBytes: () => 4096 });
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'too_large' });
    expect(events.map((e) => e.statusClass)).toEqual(['too_large']);
  });

  it('checks a gzip answer after decompression', async () => {
    const packed = gzipSync(Buffer.from(big));
    expect(packed.length).toBeLessThan(4096);
    const up = await hostile((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(packed);
    });
    const small = client(up.url, { maxResponseBytes: () => 4096 });
    await expect(small.c.listSites()).rejects.toMatchObject({ reason: 'too_large' });
    const roomy = client(up.url, { maxResponseBytes: () => 1 << 20 });
    // Decompressed and parsed: the one site is malformed, so it is skipped, not an error.
    await expect(roomy.c.listSites()).resolves.toMatchObject({ received: 1 });
  });

  it('cuts off a slow-drip answer at the total deadline', async () => {
    const up = await hostile((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(t));
    });
    const { c } = client(up.url, { timeoutMs: 300, retry: { maxAttempts: 1, baseMs: 0, maxDelayMs: 0 } });
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'timeout' });
  });
});

describe('hostile bodies', () => {
  it('names a body that does not decompress invalid_body: not retried, not a breaker failure', async () => {
    const up = await hostile((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(Buffer.from('definitely not gzip'));
    });
    const changes: string[] = [];
    const breakers = new Breakers({
      threshold: 1,
      probeIntervalMs: 10_000,
      now: () => 0,
      onChange: (e, s) => changes.push(`${e}:${s}`),
    });
    const { c, events } = client(up.url, { breakers });
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'invalid_body', status: 200 });
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'invalid_body' });
    // Before: classed network, sent three times each, and the breaker opened on the first.
    expect(up.seen).toHaveLength(2);
    expect(events.map((e) => e.statusClass)).toEqual(['invalid_body', 'invalid_body']);
    expect(changes).toEqual([]);
  });

  it('refuses an answer with more items than the limit as too_large, once, without retrying', async () => {
    const up = await hostile((_q, res) => json(res, 200, `{"data":[${Array(1001).fill('{}').join(',')}]}`));
    const { c, events } = client(up.url, { maxItemsPerAnswer: 1000 });
    const err = await c.units({}).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'too_large', endpoint: 'units' });
    expect((err as Error).message).toBe('units: answer holds more than 1000 items; not decoded');
    expect(up.seen).toHaveLength(1);
    expect(events.map((e) => e.statusClass)).toEqual(['too_large']);
  });

  it('keeps a 20 MB error message from a 500 to a bounded length', async () => {
    const message = 'e'.repeat(20 * 1024 * 1024);
    const up = await hostile((_q, res) => json(res, 500, JSON.stringify({ error: { code: 'X', message } })));
    const errors: UpstreamError[] = [];
    const { c } = client(up.url, { observer: { error: (e) => errors.push(e) }, timeoutMs: 60_000 });
    await expect(c.listSites()).rejects.toMatchObject({ reason: 'status', status: 500 });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.upstreamMessage!.length).toBeLessThanOrEqual(MAX_UPSTREAM_TEXT);
    expect(errors[0]!.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
  });
});

describe('schema drift', () => {
  const S = 'a'.repeat(24);
  const cases: Array<{
    name: string;
    body: string;
    call: (c: ReturnType<typeof createClient>) => Promise<unknown>;
    want: object;
  }> = [
    {
      name: 'data as an object on a list endpoint',
      body: ok({ items: [] }),
      call: (c) => c.units({ stationIds: [S] }),
      want: { reason: 'invalid_body' },
    },
    {
      name: 'not JSON at all',
      body: '<html>oops</html>',
      call: (c) => c.listSites(),
      want: { reason: 'invalid_body' },
    },
    {
      name: 'a summary that is an array',
      body: ok([1, 2]),
      call: (c) => c.stationSummary({ stationIds: [S] }),
      want: { reason: 'invalid_body' },
    },
  ];
  it.each(cases)('$name is a typed error', async ({ body, call, want }) => {
    const up = await hostile((_q, res) => json(res, 200, body));
    const { c } = client(up.url);
    await expect(call(c)).rejects.toMatchObject(want);
  });

  it('renamed fields and numbers as strings become skipped records with a reason', async () => {
    const record = {
      station_id: S,
      slot: null,
      unit_serial: 'U1',
      time_created: '2026-11-21T12:00:00Z',
      tz: null,
      mode: null,
      tags: [],
      unit_type: null,
      direction: 'output',
      result: 'pass',
      metadata: null,
    };
    const { station_id, ...renamed } = record;
    const up = await hostile((_q, res) =>
      json(
        res,
        200,
        ok([record, { ...renamed, stationId: station_id }, { ...record, time_created: 'yesterday-ish' }]),
      ),
    );
    const skipped: Array<[string, number]> = [];
    const { c } = client(up.url, {
      observer: { skipped: ({ reason, count }) => skipped.push([reason, count]) },
    });
    const list = await c.units({ stationIds: [S] });
    expect(list.records).toHaveLength(1);
    expect(skipped.reduce((a, [, n]) => a + n, 0)).toBe(2);
    for (const [reason] of skipped) expect(reason).toMatch(/\w/);
  });
});

describe('fair share', () => {
  it('gives a second collector a slot while a slow one has many requests queued', async () => {
    const limiter = new Limiter({ concurrency: 4, ratePerSecond: Number.POSITIVE_INFINITY });
    const gates: Array<() => void> = [];
    const started: string[] = [];
    const task = (key: string) => () =>
      new Promise<void>((r) => {
        started.push(key);
        gates.push(r);
      });
    const slow = Array.from({ length: 20 }, () => limiter.run(task('summary'), 'summary'));
    const fast = limiter.run(task('units'), 'units');
    await new Promise((r) => setImmediate(r));
    expect(started.filter((k) => k === 'summary')).toHaveLength(4);
    // The first free slot goes to the collector under its share, not to the long queue.
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(started[4]).toBe('units');
    while (gates.length > 0) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([...slow, fast]);
    // Every slot is free again: four more requests of the slow collector start at once.
    const again = Array.from({ length: 4 }, () => limiter.run(task('summary'), 'summary'));
    await new Promise((r) => setImmediate(r));
    expect(started).toHaveLength(25);
    for (const open of gates.splice(0)) open();
    await Promise.all(again);
  });
});
