import { describe, expect, it } from 'vitest';
import { getOrCreate } from '../../src/util/maps.ts';

describe('getOrCreate', () => {
  it('makes and stores a value only when the key has none', () => {
    const map = new Map<string, number[]>([['a', [1]]]);
    let made = 0;
    const make = () => {
      made++;
      return [];
    };
    expect(getOrCreate(map, 'a', make)).toEqual([1]);
    const b = getOrCreate(map, 'b', make);
    b.push(2);
    expect(getOrCreate(map, 'b', make)).toBe(b);
    expect(made).toBe(1);
    expect(map.get('b')).toEqual([2]);
  });

  it('keeps a stored falsy value (0) instead of making a new one', () => {
    const map = new Map([['zero', 0]]);
    expect(getOrCreate(map, 'zero', () => 7)).toBe(0);
  });
});
