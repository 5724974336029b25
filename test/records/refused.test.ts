/**
 * 403 isolation: a refused station is found by splitting once, then left out of later polls
 * (one request instead of a split every poll), re-probed alone when due, and cleared when the
 * upstream answers for it again.
 */
import { describe, expect, it } from 'vitest';
import { fetchIncremental } from '../../src/records/fetch.ts';
import { RefusedStations } from '../../src/records/refused.ts';
import type { RecordSource } from '../../src/records/types.ts';
import { buildUrl, ENDPOINTS } from '../../src/upstream/endpoints.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';

const MIN = 60_000;
const ids = Array.from({ length: 8 }, (_, i) => i.toString(16).repeat(24));

function source(denied: Set<string>) {
  const calls: string[][] = [];
  const src: RecordSource<{ station: string; time: number }> = {
    urlLength: (q) => buildUrl('http://up', '/metrics', ENDPOINTS.metrics.params(q)).length,
    async fetch(q) {
      const stations = q.stationIds ?? [];
      calls.push([...stations]);
      if (stations.some((s) => denied.has(s))) {
        throw new UpstreamError('metrics', 'status', { message: 'metrics: HTTP 403', status: 403 });
      }
      const records = stations.map((station) => ({ station, time: (q.to?.getTime() ?? 0) - 1 }));
      return { records, skipped: {}, received: records.length };
    },
  };
  return { src, calls };
}

describe('refused stations', () => {
  it('splits once, then leaves the refused station out and probes it slowly', async () => {
    const denied = new Set([ids[5]!]);
    const { src, calls } = source(denied);
    const changes: Array<[number, readonly string[], readonly string[]]> = [];
    const refused = new RefusedStations(10 * MIN, (n, a, c) => changes.push([n, a, c]));
    const got = new Set<string>();
    const poll = (now: number, watermarks = new Map<string, number>()) =>
      fetchIncremental({
        source: src,
        stationIds: ids,
        watermarks,
        now,
        retainFrom: now - 10 * MIN,
        overlapMs: MIN,
        maxUrlLength: 8192,
        maxRecords: 1000,
        refused,
        onRecords: (rs) => {
          for (const r of rs) got.add(r.station);
        },
      });
    const first = await poll(100 * MIN);
    expect(first.failures).toBe(0);
    // 1 batch + halving down to the one refused station: 1 + 2 + 2 + 2 = 7 requests.
    expect(calls).toHaveLength(7);
    expect(refused.ids()).toEqual([ids[5]]);
    expect(changes).toEqual([[1, [ids[5]], []]]);
    expect(got).toEqual(new Set(ids.filter((id) => id !== ids[5])));
    expect(first.watermarks.has(ids[5]!)).toBe(false);

    calls.length = 0;
    await poll(101 * MIN, first.watermarks);
    // Later polls: one request for the accessible stations, none for the refused one.
    expect(calls).toEqual([ids.filter((id) => id !== ids[5])]);

    calls.length = 0;
    denied.clear();
    await poll(111 * MIN, first.watermarks);
    // Due for a probe: sent alone, and its answer clears it.
    expect(calls).toContainEqual([ids[5]]);
    expect(calls).toHaveLength(2);
    expect(refused.size).toBe(0);
    expect(changes.at(-1)).toEqual([0, [], [ids[5]]]);
  });
});
