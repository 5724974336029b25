import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SPAN_MS } from '../../src/records/fetch.ts';
import { sweepSpans } from '../../src/records/sweep.ts';
import { createRecordSync, type SyncedRecord } from '../../src/records/sync.ts';
import type { RecordSource, RecordStore } from '../../src/records/types.ts';
import { buildUrl, ENDPOINTS, type WindowQuery } from '../../src/upstream/endpoints.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_000 * HOUR;
const WINDOW = 24 * HOUR;
const stations = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(24, '0'));

interface Rec extends SyncedRecord {
  readonly id: string;
}

/** The upstream's records, each visible from its `inserted` time (the upstream's clock is `clock.now`). */
function fakeUpstream() {
  const held: Rec[] = [];
  const clock = { now: T0 };
  const calls: WindowQuery[] = [];
  const source: RecordSource<Rec> = {
    urlLength: (q) => buildUrl('http://up', '/units', ENDPOINTS.units.params(q)).length,
    async fetch(q) {
      calls.push(q);
      const ids = new Set(q.stationIds);
      const from = q.from!.getTime();
      const to = q.to!.getTime();
      const records = held.filter(
        (r) => ids.has(r.stationId) && r.time >= from && r.time < to && (r.inserted ?? r.time) <= clock.now,
      );
      return { records, skipped: {}, received: records.length };
    },
  };
  return { held, clock, calls, source };
}

function memoryStore(): RecordStore<Rec> & { ids: Set<string> } {
  const byId = new Map<string, Rec>();
  return {
    add(records) {
      let added = 0;
      for (const r of records) {
        if (!byId.has(r.id)) added++;
        byId.set(r.id, r);
      }
      return added;
    },
    evictBefore(t) {
      for (const [id, r] of byId) if (r.time < t) byId.delete(id);
    },
    retainStations() {},
    size: () => byId.size,
    get ids() {
      return new Set(byId.keys());
    },
  };
}

function syncOver(up: ReturnType<typeof fakeUpstream>, store: RecordStore<Rec>, maxUrlLength: number) {
  return createRecordSync<Rec>({
    collector: 'units',
    source: up.source,
    store,
    overlapMs: 5 * MIN,
    rereadIntervalMs: HOUR,
    maxFutureSkewMs: 5 * MIN,
    maxRecords: 100_000,
    maxUrlLength,
    logger: pino({ level: 'silent' }),
    yielder: new LoopYielder(),
  });
}

describe('record sync: the re-read sweep', () => {
  it('spreads the re-read over the polls: no poll costs more than its batches plus two spans of each', async () => {
    const up = fakeUpstream();
    const store = memoryStore();
    // A URL limit that fits about 10 of the 40 stations: 4 batches, as for 1,000 stations at 8 KiB.
    const sync = syncOver(up, store, 400);
    const perPoll: number[] = [];
    let batches = 0;
    for (let i = 0; i <= 3 * 60; i++) {
      const now = T0 + i * MIN;
      up.clock.now = now;
      const before = up.calls.length;
      const r = await sync({ stationIds: stations, now, retainFrom: now - WINDOW });
      expect(r.requests).toBe(up.calls.length - before);
      if (i === 1) batches = r.requests;
      if (i > 0) perPoll.push(r.requests);
    }
    expect(batches).toBeGreaterThanOrEqual(4);
    // The old whole-window re-read cost 48 spans × the batches on one poll.
    expect(Math.max(...perPoll)).toBeLessThanOrEqual(3 * batches);
    // Three sweeps in three hours cost what the planner counts, and no less than 48 spans each.
    const swept = perPoll.reduce((a, b) => a + b, 0) - batches * perPoll.length;
    expect(swept).toBeLessThanOrEqual(3 * batches * sweepSpans(WINDOW, HOUR, DEFAULT_MAX_SPAN_MS));
    expect(swept).toBeGreaterThanOrEqual(3 * batches * 48);
  });

  it('finds records that arrived later than the overlap within an interval, and counts each late once', async () => {
    const up = fakeUpstream();
    const store = memoryStore();
    const sync = syncOver(up, store, 8192);
    const late = new Map<string, number>();
    // Created 3 hours, 20 minutes and 30 seconds before they reach the upstream at T0 + 90m.
    const arrival = T0 + 90 * MIN;
    const delays = [3 * HOUR, 20 * MIN, 30_000];
    delays.forEach((d, k) => {
      up.held.push({ id: `late-${k}`, stationId: stations[k]!, time: arrival - d, inserted: arrival });
    });
    let foundAt: number | undefined;
    for (let i = 0; i <= 3 * 60; i++) {
      const now = T0 + i * MIN;
      up.clock.now = now;
      const r = await sync({ stationIds: stations, now, retainFrom: now - WINDOW });
      for (const [s, n] of r.late) late.set(s, (late.get(s) ?? 0) + n);
      if (foundAt === undefined && store.ids.has('late-0')) foundAt = now;
    }
    expect(store.ids).toEqual(new Set(['late-0', 'late-1', 'late-2']));
    expect(foundAt! - arrival).toBeLessThanOrEqual(HOUR + MIN);
    // By time_inserted, the first two are late; the third came within the overlap.
    expect([...late.entries()].sort()).toEqual([
      [stations[0]!, 1],
      [stations[1]!, 1],
    ]);
  });
});
