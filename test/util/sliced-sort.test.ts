import { describe, expect, it } from 'vitest';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { sortInSlices } from '../../src/util/sliced-sort.ts';

/** A deterministic generator (xorshift32), so that the cases are the same on every run. */
function numbers(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

interface Item {
  readonly time: number;
  readonly id: number;
}

/** Items with many equal times, so that stability shows. */
function items(n: number, seed: number): Item[] {
  const next = numbers(seed);
  return Array.from({ length: n }, (_, id) => ({ time: next() % Math.max(1, n >> 3), id }));
}

const byTime = (a: Item, b: Item) => a.time - b.time;

/** A yielder that counts its turns and the comparisons made during each. */
function countingYielder(): { yielder: LoopYielder; turns: number[] } {
  const turns = [0];
  const yielder = new (class extends LoopYielder {
    override yieldToLoop() {
      turns.push(0);
      return super.yieldToLoop();
    }
  })();
  return { yielder, turns };
}

describe('sortInSlices', () => {
  it.each([
    [0, 4],
    [1, 4],
    [4, 4],
    [5, 4],
    [17, 4],
    [1000, 7],
    [1000, 1000],
    [4096, 64],
    [10_000, 333],
  ])(
    'gives the order Array.prototype.sort gives, equal items in input order (%i items, slices of %i)',
    async (n, size) => {
      for (const seed of [1, 2, 3]) {
        const input = items(n, seed * 7919 + n);
        const expected = [...input].sort(byTime);
        const got = await sortInSlices([...input], byTime, { yielder: new LoopYielder(), size });
        expect(got).toEqual(expected);
        expect(got.map((x) => x.id)).toEqual(expected.map((x) => x.id));
      }
    },
  );

  it('sorts an already sorted and a reversed input', async () => {
    const sorted = Array.from({ length: 1000 }, (_, id) => ({ time: id, id }));
    const yielder = new LoopYielder();
    expect(await sortInSlices([...sorted], byTime, { yielder, size: 64 })).toEqual(sorted);
    expect(await sortInSlices([...sorted].reverse(), byTime, { yielder, size: 64 })).toEqual(sorted);
  });

  it('never compares more than a slice’s worth of items between two turns', async () => {
    const { yielder, turns } = countingYielder();
    const size = 100;
    const counted = (a: Item, b: Item) => {
      turns[turns.length - 1]!++;
      return byTime(a, b);
    };
    const input = items(5000, 11);
    const got = await sortInSlices([...input], counted, { yielder, size });
    expect(got).toEqual([...input].sort(byTime));
    expect(turns.length).toBeGreaterThan(5000 / size);
    // A run of `size` items is sorted with at most size·log2(size) comparisons; a merge slice makes one per item.
    expect(Math.max(...turns)).toBeLessThanOrEqual(size * Math.ceil(Math.log2(size)));
  });

  it('sorts a slice-sized input in place, in one turn', async () => {
    const { yielder, turns } = countingYielder();
    const input = items(50, 5);
    const got = await sortInSlices(input, byTime, { yielder, size: 50 });
    expect(got).toBe(input);
    expect(turns).toHaveLength(1);
  });
});
