import { describe, expect, it } from 'vitest';
import { fetchIncremental, type IncrementalFetchOptions, spansOf } from '../../src/records/fetch.ts';
import { splitCount } from '../../src/records/spans.ts';
import type { RecordSource } from '../../src/records/types.ts';
import { buildUrl, ENDPOINTS, type WindowQuery } from '../../src/upstream/endpoints.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';

const MIN = 60_000;
const NOW = 1_000 * MIN;
const ids = Array.from({ length: 10 }, (_, i) => i.toString(16).repeat(24));

interface Rec {
  station: string;
  time: number;
}

/** The length of the URL the client would send for a window query. */
const urlLength = (q: WindowQuery) => buildUrl('http://up', '/metrics', ENDPOINTS.metrics.params(q)).length;

/** A fake upstream: one record per station per minute, with an optional result cap and failures. */
function fakeSource(opts: { cap?: number; fail?: (q: WindowQuery) => Error | undefined } = {}) {
  const calls: Array<{ ids: readonly string[]; from: number; to: number }> = [];
  const source: RecordSource<Rec> = {
    urlLength: (q) => urlLength(q),
    async fetch(q) {
      const from = q.from?.getTime() ?? 0;
      const to = q.to?.getTime() ?? 0;
      calls.push({ ids: q.stationIds ?? [], from, to });
      const err = opts.fail?.(q);
      if (err) throw err;
      const all: Rec[] = [];
      for (let t = Math.ceil(from / MIN) * MIN; t < to; t += MIN) {
        for (const station of q.stationIds ?? []) all.push({ station, time: t });
      }
      const records = opts.cap === undefined ? all : all.slice(0, opts.cap);
      return { records, skipped: {}, received: records.length };
    },
  };
  return { source, calls };
}

function run(source: RecordSource<Rec>, over: Partial<IncrementalFetchOptions<Rec>> = {}) {
  const got: Rec[] = [];
  const result = fetchIncremental<Rec>({
    source,
    stationIds: ids,
    watermarks: new Map(),
    now: NOW,
    retainFrom: NOW - 60 * MIN,
    overlapMs: 5 * MIN,
    maxUrlLength: 8192,
    maxRecords: 50_000,
    // One span for the whole retained hour, unless a test asks for shorter spans.
    maxSpanMs: 24 * 60 * MIN,
    onRecords: (r) => {
      got.push(...r);
    },
    ...over,
  });
  return result.then((r) => ({ ...r, got }));
}

describe('fetchIncremental', () => {
  it('fetches the longest window first, then from the watermark minus the overlap', async () => {
    const { source, calls } = fakeSource();
    const first = await run(source);
    expect(calls).toEqual([{ ids, from: NOW - 60 * MIN, to: NOW }]);
    expect(first.got).toHaveLength(600);
    expect([...first.watermarks.values()]).toEqual(ids.map(() => NOW));
    calls.length = 0;
    await run(source, { watermarks: first.watermarks, now: NOW + 10 * MIN });
    expect(calls).toEqual([{ ids, from: NOW - 5 * MIN, to: NOW + 10 * MIN }]);
  });

  it('chunks station lists so that every URL stays within the limit', async () => {
    const { source, calls } = fakeSource();
    const max = urlLength({ stationIds: ids.slice(0, 3), from: new Date(0), to: new Date(NOW) });
    const r = await run(source, { maxUrlLength: max });
    expect(calls.map((c) => c.ids.length)).toEqual([3, 3, 3, 1]);
    expect(r.got).toHaveLength(600);
  });

  it('chunks station ids of any lengths as filling each URL in turn would, and names the ones too long alone', async () => {
    // Ids of uneven lengths (the upstream's own are fixed, a proxy's or a test plant's may not be).
    const mixed = Array.from({ length: 40 }, (_, i) => 'ab'.repeat(1 + ((i * 7) % 11)));
    mixed.splice(17, 0, 'x'.repeat(300));
    const { source, calls } = fakeSource();
    const span = { from: new Date(NOW - 60 * MIN), to: new Date(NOW) };
    const max = urlLength({ stationIds: ['x'.repeat(200)], ...span });
    // The reference: add each id to the current list while the URL stays within the limit.
    const expected: string[][] = [];
    let current: string[] = [];
    for (const id of mixed) {
      if (urlLength({ stationIds: [...current, id], ...span }) <= max) {
        current.push(id);
        continue;
      }
      if (current.length > 0) expected.push(current);
      current = urlLength({ stationIds: [id], ...span }) <= max ? [id] : [];
    }
    if (current.length > 0) expected.push(current);
    const r = await run(source, { stationIds: mixed, maxUrlLength: max });
    expect(expected.length).toBeGreaterThan(3);
    expect(calls.map((c) => c.ids)).toEqual(expected);
    expect(r.notSent).toBe(1);
    expect(r.firstError?.message).toContain('exceeds max_url_length');
  });

  it('splits spans in halves while an answer reaches the record cap, down to the minimum span', async () => {
    const { source, calls } = fakeSource({ cap: 100 });
    const r = await run(source, { maxRecords: 100 });
    const keys = new Set(r.got.map((x) => `${x.station}@${x.time}`));
    expect(keys.size).toBe(600);
    expect(r.failures).toBe(0);
    expect(r.splits).toBeGreaterThan(0);
    expect(Math.min(...calls.map((c) => c.to - c.from))).toBeGreaterThanOrEqual(MIN);
  });

  it('a failed chunk keeps its watermark; records of its other parts are still delivered', async () => {
    const bad = ids[0] ?? '';
    const { source } = fakeSource({
      cap: 100,
      fail: (q) =>
        q.stationIds?.includes(bad) && (q.from?.getTime() ?? 0) >= NOW - 20 * MIN
          ? new UpstreamError('metrics', 'status', { message: 'boom', status: 500 })
          : undefined,
    });
    const old = new Map(ids.map((id) => [id, NOW - 30 * MIN]));
    const maxUrlLength = urlLength({ stationIds: ids.slice(0, 3), from: new Date(0), to: new Date(NOW) });
    const r = await run(source, { maxRecords: 100, watermarks: old, maxUrlLength });
    expect(r.failures).toBeGreaterThan(0);
    expect(r.watermarks.get(bad)).toBe(NOW - 30 * MIN);
    expect(r.firstError?.message).toBe('boom');
    expect(r.got.some((x) => x.station === bad)).toBe(true);
    expect(r.failedStations).toBe(3);
    expect(ids.filter((id) => r.watermarks.get(id) === NOW)).toHaveLength(7);
  });

  it('halves a timed-out span only a few times, then gives up on that chunk', async () => {
    const { source, calls } = fakeSource({
      fail: () => new UpstreamError('metrics', 'timeout', { message: 'slow' }),
    });
    const r = await run(source);
    expect(calls).toHaveLength(1 + 2 + 4 + 8);
    // Counted per request, like the requests: the 8 smallest spans failed, the 7 halved are splits.
    expect(r.requests).toBe(8);
    expect(r.failures).toBe(8);
    expect(r.splits).toBe(7);
    expect(r.failedStations).toBe(10);
    expect(r.watermarks.size).toBe(0);
  });

  it('halves a span whose answer was too large, as after a timeout, and gets all its records', async () => {
    const all = await run(fakeSource({}).source);
    const { source } = fakeSource({
      fail: (q) =>
        (q.to?.getTime() ?? 0) - (q.from?.getTime() ?? 0) > 10 * MIN
          ? new UpstreamError('metrics', 'too_large', { message: 'answer holds more than 200000 items' })
          : undefined,
    });
    const r = await run(source);
    expect(r.failures).toBe(0);
    expect(r.got).toHaveLength(all.got.length);
  });

  it('counts requests and failures in the same unit when the circuit is open: none sent, none answered', async () => {
    const { source } = fakeSource({
      fail: () =>
        new UpstreamError('metrics', 'circuit_open', { message: 'metrics: circuit open; not sent' }),
    });
    // Three spans of two chunks (the old code counted 6 requests against 2 failures).
    const maxUrlLength = urlLength({ stationIds: ids.slice(0, 5), from: new Date(0), to: new Date(NOW) });
    const r = await run(source, { maxSpanMs: 20 * MIN, maxUrlLength });
    expect(r.requests).toBe(6);
    expect(r.failures).toBe(6);
    expect(r.notSent).toBe(6);
    expect(r.failedStations).toBe(10);
  });

  it('counts a station whose URL alone is too long as a request due, failed and not sent', async () => {
    const { source, calls } = fakeSource();
    const r = await run(source, { maxUrlLength: 10 });
    expect(calls).toHaveLength(0);
    expect(r.requests).toBe(10);
    expect(r.failures).toBe(10);
    expect(r.notSent).toBe(10);
  });

  it('isolates a forbidden station instead of failing its whole list', async () => {
    const bad = ids[7] ?? '';
    const { source } = fakeSource({
      fail: (q) =>
        q.stationIds?.includes(bad)
          ? new UpstreamError('metrics', 'status', { message: 'no', status: 403 })
          : undefined,
    });
    const r = await run(source);
    expect(r.failures).toBe(0);
    expect(r.got).toHaveLength(540);
    expect(r.got.some((x) => x.station === bad)).toBe(false);
  });
});

describe('splitCount', () => {
  const at = (...times: number[]) => times.map((time) => ({ time }));
  it('sizes parts from the time one truncated answer covered, with a margin', () => {
    // The answer covered a quarter of a 4-hour span: five parts.
    expect(
      splitCount(at(0, 3_600_000), { from: 0, to: 4 * 3_600_000 }, { minSpanMs: 60_000, maxRecords: 2 }),
    ).toBe(5);
  });
  it('halves when the answer covers the whole span (truncated in no time order)', () => {
    expect(
      splitCount(
        at(0, 4 * 3_600_000 - 1),
        { from: 0, to: 4 * 3_600_000 },
        { minSpanMs: 60_000, maxRecords: 2 },
      ),
    ).toBe(2);
  });
  it('never makes parts shorter than the minimum span, nor more than 64', () => {
    expect(splitCount(at(5, 5), { from: 0, to: 10 * 60_000 }, { minSpanMs: 60_000, maxRecords: 2 })).toBe(10);
    expect(splitCount(at(5, 5), { from: 0, to: 7 * 86_400_000 }, { minSpanMs: 60_000, maxRecords: 2 })).toBe(
      64,
    );
  });
});

describe('splitCount for an answer larger than the limit', () => {
  it('splits into enough parts for the records received, even when they cover the whole span', () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({ time: i * 1440 }));
    // 10,000 records against a limit of 1,000: at least ten answers' worth, plus the margin.
    expect(splitCount(records, { from: 0, to: 14_400_000 }, { minSpanMs: 60_000, maxRecords: 1000 })).toBe(
      13,
    );
  });
});

describe('spansOf', () => {
  it('cuts a long span into consecutive spans of at most the maximum', () => {
    expect(spansOf(0, 250, 100)).toEqual([
      [0, 100],
      [100, 200],
      [200, 250],
    ]);
    expect(spansOf(5, 5, 100)).toEqual([]);
  });
});
