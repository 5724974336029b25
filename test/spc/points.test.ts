import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { RecentPoints } from '../../src/spc/points.ts';

const held = (p: RecentPoints) => ({
  times: [...p.timeColumn.subarray(0, p.length)],
  values: [...p.valueColumn.subarray(0, p.length)],
});

describe('RecentPoints', () => {
  it('appends points in time order at once and counts them at the next merge', () => {
    const p = new RecentPoints();
    for (let i = 0; i < 40; i++) p.add(i * 10, i);
    expect(p.merge()).toBe(40);
    expect(p.merge()).toBe(0);
    expect(held(p).times).toEqual(Array.from({ length: 40 }, (_, i) => i * 10));
    expect(p.prefixVersion).toBe(0);
  });

  it('merges a late point after appended ones in its place, equal times in arrival order', () => {
    const p = new RecentPoints();
    p.add(10, 1);
    p.add(30, 3);
    p.add(20, 2);
    p.add(30, 4);
    p.add(40, 5);
    expect(p.merge()).toBe(5);
    expect(held(p)).toEqual({ times: [10, 20, 30, 30, 40], values: [1, 2, 3, 4, 5] });
    // A held point moved: the prefix is not the same any more.
    expect(p.prefixVersion).toBe(1);
  });

  it('passes every point held with its key, queued ones too, and leaves the merge count alone', () => {
    const p = new RecentPoints();
    p.add(10, 1, 101);
    p.add(20, 2, 102);
    // Older than a held point: queued for the next merge.
    p.add(15, 3, 103);
    const seen: number[][] = [];
    p.forEach((t, v, k) => {
      seen.push([t, v, k]);
    });
    expect(seen).toEqual([
      [10, 1, 101],
      [20, 2, 102],
      [15, 3, 103],
    ]);
    expect(p.merge()).toBe(3);
    p.forgetKeys();
    const after: number[][] = [];
    p.forEach((t, v, k) => {
      after.push([t, v, k]);
    });
    expect(after).toEqual([
      [10, 1, 0],
      [15, 3, 0],
      [20, 2, 0],
    ]);
  });

  it('recognises a keyed point passed again, also after points appended without keys', () => {
    const p = new RecentPoints();
    p.add(10, 1);
    p.add(20, 2, 7);
    p.add(20, 2, 7);
    p.add(30, 3, 8);
    expect(p.merge()).toBe(3);
    expect(held(p)).toEqual({ times: [10, 20, 30], values: [1, 2, 3] });
    p.forgetKeys();
    p.add(40, 4);
    p.dropFirst(2);
    expect(p.merge()).toBe(1);
    expect(held(p)).toEqual({ times: [30, 40], values: [3, 4] });
  });

  it('finds the first point at or after a time below any bound, as a plain binary search does', () => {
    const rng = splitmix64Fast(7);
    // Differences collected and compared once: an expect per query costs more than the search.
    const wrong: string[] = [];
    for (let trial = 0; trial < 300; trial++) {
      const p = new RecentPoints();
      const times: number[] = [];
      let t = 0;
      // Equal times and gaps; 0 to 69 points.
      for (let i = Math.floor(rng.uniform() * 70); i > 0; i--) {
        t += Math.floor(rng.uniform() * 3);
        times.push(t);
        p.add(t, 0);
      }
      p.merge();
      for (let q = -1; q <= t + 1; q++) {
        const hi = Math.floor(rng.uniform() * (times.length + 1));
        const below = times.slice(0, hi).findIndex((x) => x >= q);
        const expected = below < 0 ? hi : below;
        const got = p.lowerBound(q, hi);
        if (got !== expected) wrong.push(`trial ${trial}: lowerBound(${q}, ${hi}) = ${got}, not ${expected}`);
        const anywhere = times.findIndex((x) => x >= q);
        const all = anywhere < 0 ? times.length : anywhere;
        const gotAll = p.lowerBound(q);
        if (gotAll !== all) wrong.push(`trial ${trial}: lowerBound(${q}) = ${gotAll}, not ${all}`);
      }
      expect(p.lowerBound(Number.NaN)).toBe(0);
    }
    expect(wrong).toEqual([]);
  });

  it('holds what a stable sort of the points passed holds, keyed copies left out, in any arrival order', () => {
    const rng = splitmix64Fast(11);
    const pick = (n: number) => Math.floor(rng.uniform() * n);
    for (let trial = 0; trial < 300; trial++) {
      const p = new RecentPoints();
      // The expected points, in time order, equal times in arrival order; and the new ones since a merge.
      const model: { time: number; value: number; key: number }[] = [];
      let fresh = 0;
      let t = 50;
      for (let op = 0; op < 80; op++) {
        if (rng.uniform() < 0.15) {
          expect(p.merge()).toBe(fresh);
          fresh = 0;
          expect(held(p)).toEqual({ times: model.map((x) => x.time), values: model.map((x) => x.value) });
          continue;
        }
        // Mostly in order (a history, a poll), sometimes late, sometimes a copy of a point passed before.
        const copy = model.length > 0 && rng.uniform() < 0.2 ? model[pick(model.length)]! : undefined;
        if (copy === undefined) t += pick(3);
        const point = copy ?? {
          time: t - (rng.uniform() < 0.2 ? pick(20) : 0),
          value: pick(4),
          key: rng.uniform() < 0.7 ? 1 + pick(5) : 0,
        };
        p.add(point.time, point.value, point.key);
        const again =
          point.key !== 0 &&
          model.some((x) => x.time === point.time && x.value === point.value && x.key === point.key);
        if (again) continue;
        const at = model.findIndex((x) => x.time > point.time);
        model.splice(at < 0 ? model.length : at, 0, { ...point });
        fresh++;
      }
      expect(p.merge()).toBe(fresh);
      expect(held(p)).toEqual({ times: model.map((x) => x.time), values: model.map((x) => x.value) });
    }
  });
});
