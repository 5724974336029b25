import { describe, expect, it } from 'vitest';
import { RecentPoints } from '../../src/spc/points.ts';

const held = (p: RecentPoints) => ({ times: [...p.times()], values: [...p.values()] });

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
});
