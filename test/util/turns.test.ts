import { describe, expect, it } from 'vitest';
import { forEachSlice, mapCooperatively } from '../../src/util/turns.ts';

describe('cooperative loops', () => {
  it('hands out every item in order, in slices, letting other work run between slices', async () => {
    const events: string[] = [];
    await forEachSlice([1, 2, 3], 2, (slice) => {
      events.push(`slice ${slice.join(',')}`);
      if (events.length === 1) setImmediate(() => events.push('other work'));
    });
    expect(events).toEqual(['slice 1,2', 'other work', 'slice 3']);
  });

  it('calls nothing for no items', async () => {
    let calls = 0;
    await forEachSlice([], 2, () => calls++);
    expect(calls).toBe(0);
  });

  it('maps in order', async () => {
    expect(await mapCooperatively([1, 2, 3, 4, 5], 2, (x) => x * 10)).toEqual([10, 20, 30, 40, 50]);
  });
});
