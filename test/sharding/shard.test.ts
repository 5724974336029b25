import { describe, expect, it } from 'vitest';
import { ownedBy, owner, parseShard, podOrdinal, resolveShard, UNSHARDED } from '../../src/sharding/shard.ts';

/** 24-hex ids like the upstream's, from a counter (no randomness). */
function ids(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `65a1f0c2${i.toString(16).padStart(16, '0')}`);
}

describe('owner', () => {
  it('is deterministic and in range', () => {
    for (const id of ids(200)) {
      const first = owner(id, 7);
      expect(owner(id, 7)).toBe(first);
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(7);
    }
    expect(owner('anything', 1)).toBe(0);
  });

  it('balances 10,000 ids over 4 shards within ±5 % of even', () => {
    const counts = [0, 0, 0, 0];
    for (const id of ids(10_000)) counts[owner(id, 4)]!++;
    for (const c of counts) {
      expect(c).toBeGreaterThanOrEqual(2_500 * 0.95);
      expect(c).toBeLessThanOrEqual(2_500 * 1.05);
    }
  });

  it('moves only the ids the new shard wins when going from 4 to 5 shards', () => {
    const all = ids(10_000);
    let moved = 0;
    for (const id of all) {
      const before = owner(id, 4);
      const after = owner(id, 5);
      if (before !== after) {
        moved++;
        // Rendezvous hashing: an id only ever moves to the shard that was added.
        expect(after).toBe(4);
      }
    }
    const share = moved / all.length;
    // Expected 1/5 of the ids; at most 30 %.
    expect(share).toBeLessThanOrEqual(0.3);
    expect(Math.abs(share - 1 / 5)).toBeLessThan(0.02);
  });

  it('rejects a total below one', () => {
    expect(() => owner('x', 0)).toThrow(RangeError);
  });
});

describe('ownedBy', () => {
  it('splits a list into disjoint parts whose union is the list, in order', () => {
    const items = ids(1_000).map((id) => ({ id }));
    const parts = [0, 1, 2].map((index) => ownedBy({ index, total: 3 }, items));
    const union = parts.flat().map((x) => x.id);
    expect(new Set(union).size).toBe(items.length);
    expect(union.length).toBe(items.length);
    for (const part of parts) {
      const positions = part.map((x) => items.indexOf(x));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    expect(ownedBy(UNSHARDED, items)).toEqual(items);
  });
});

describe('parsing', () => {
  it('reads --shard i/n counting from 0', () => {
    expect(parseShard('2/4')).toEqual({ shard: { index: 2, total: 4 } });
    expect(parseShard('0/1')).toEqual({ shard: { index: 0, total: 1 } });
    expect(parseShard('4/4')).toEqual({
      error: 'shard index must be between 0 and 3 (shards count from 0), got 4',
    });
    expect(parseShard('1/0')).toEqual({ error: 'shard total must be between 1 and 1024, got 0' });
    expect(parseShard('a/4')).toEqual({ error: '--shard must be index/total such as 0/4, got "a/4"' });
    expect(parseShard('-1/4')).toHaveProperty('error');
  });

  it('reads a StatefulSet pod ordinal from a hostname', () => {
    expect(podOrdinal('station-exporter-3')).toBe(3);
    expect(podOrdinal('station-exporter-12.station-exporter.monitoring.svc.cluster.local')).toBe(12);
    expect(podOrdinal('station-exporter')).toBeUndefined();
    expect(podOrdinal('laptop')).toBeUndefined();
  });

  it('takes the flag, then the config, then the pod ordinal', () => {
    const pod = { hostname: 'station-exporter-1', totalFromEnv: '4' };
    expect(resolveShard({ ...pod, flag: '3/5', config: { index: 0, total: 2 } })).toEqual({
      shard: { index: 3, total: 5 },
    });
    expect(resolveShard({ ...pod, config: { index: 0, total: 2 } })).toEqual({
      shard: { index: 0, total: 2 },
    });
    expect(resolveShard(pod)).toEqual({ shard: { index: 1, total: 4 } });
    expect(resolveShard({ hostname: 'station-exporter-1' })).toEqual({ shard: UNSHARDED });
    expect(resolveShard({ hostname: 'laptop', totalFromEnv: '4' })).toHaveProperty('error');
    expect(resolveShard({ hostname: 'station-exporter-4', totalFromEnv: '4' })).toHaveProperty('error');
    expect(resolveShard({ hostname: 'station-exporter-0', totalFromEnv: 'four' })).toHaveProperty('error');
  });
});
