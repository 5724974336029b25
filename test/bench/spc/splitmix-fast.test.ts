import { describe, expect, it } from 'vitest';
import { splitmix64 } from '../../../bench/shared/random.ts';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';

describe('splitmix64 in 32-bit halves', () => {
  it('gives the BigInt generator’s outputs, uniforms and normals for any seed', () => {
    for (const seed of [0, 1, 42, 2 ** 40 + 7, -5, 0xffffffffffffffffn]) {
      const slow = splitmix64(seed);
      const fast = splitmix64Fast(seed);
      for (let i = 0; i < 200; i++) expect(fast.nextUint64()).toBe(slow.nextUint64());
      for (let i = 0; i < 200; i++) expect(fast.uniform()).toBe(slow.uniform());
      for (let i = 0; i < 200; i++) expect(fast.normal()).toBe(slow.normal());
    }
  });

  it('matches the published first output of seed 1234567', () => {
    // splitmix64.c (Vigna) seeded with 1234567: the first output is 6457827717110365317.
    expect(splitmix64Fast(1234567).nextUint64()).toBe(6457827717110365317n);
  });
});
