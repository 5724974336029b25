import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Combine } from '../../src/exposition/crc32.ts';

describe('crc32Combine', () => {
  it.each([
    ['hello ', 'world'],
    ['', 'x'],
    ['x', ''],
    ['a'.repeat(100_000), 'ü'.repeat(77_777)],
  ])('gives the CRC of %#: A+B from the parts', (a, b) => {
    const A = Buffer.from(a);
    const B = Buffer.from(b);
    expect(crc32Combine(crc32(A), crc32(B), B.length)).toBe(zlib.crc32(Buffer.concat([A, B])) >>> 0);
  });

  it('continues a CRC over an empty buffer unchanged', () => {
    expect(crc32(Buffer.from(''), 1234)).toBe(1234);
  });
});
