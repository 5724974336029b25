import { describe, expect, it } from 'vitest';
import { LoopYielder } from '../../src/util/loop-yield.ts';

describe('turns', () => {
  it('hands out every item in order, in slices, letting other work run between slices', async () => {
    const events: string[] = [];
    await new LoopYielder().forEachSlice([1, 2, 3], 2, (slice) => {
      events.push(`slice ${slice.join(',')}`);
      if (events.length === 1) setImmediate(() => events.push('other work'));
    });
    expect(events).toEqual(['slice 1,2', 'other work', 'slice 3']);
  });

  it('calls nothing for no items', async () => {
    let calls = 0;
    await new LoopYielder().forEachSlice([], 2, () => calls++);
    expect(calls).toBe(0);
  });

  it('maps in order', async () => {
    expect(await new LoopYielder().map([1, 2, 3, 4, 5], 2, (x) => x * 10)).toEqual([10, 20, 30, 40, 50]);
  });

  it('hands out one turn per loop iteration to concurrent loops sharing a queue', async () => {
    const yielder = new LoopYielder();
    const events: string[] = [];
    const loop = (name: string) =>
      yielder.forEachSlice([1, 2, 3], 1, (slice) => events.push(`${name}${slice[0]}`));
    // Between two turns of one queue, a setImmediate queued in between runs: the loops interleave.
    await Promise.all([loop('a'), loop('b')]);
    expect(events).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('keeps separate queues apart: no state is shared between two exporters', async () => {
    const one = new LoopYielder();
    const two = new LoopYielder();
    let order = '';
    const a = one.yieldToLoop().then(() => {
      order += 'a';
    });
    const b = two.yieldToLoop().then(() => {
      order += 'b';
    });
    await Promise.all([a, b]);
    expect(order).toBe('ab');
  });
});
