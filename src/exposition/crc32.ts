/** CRC-32 for splicing gzip bodies; `crc32Combine` is zlib's `crc32_combine`, which Node does not expose. */
import zlib from 'node:zlib';

/** CRC32 of `buf` continued from `crc`, unsigned. */
export function crc32(buf: Uint8Array, crc = 0): number {
  // Node 20's zlib.crc32 returns 0 instead of `crc` for a buffer without a backing store
  // (e.g. Buffer.from('')), which would corrupt the trailer of an empty tail.
  return buf.length === 0 ? crc >>> 0 : zlib.crc32(buf, crc) >>> 0;
}

function times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  let v = vec >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= mat[i]!;
  return sum >>> 0;
}

function square(out: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) out[n] = times(mat, mat[n]!);
}

/** CRC32 of the concatenation A+B, given crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the CRC-32 polynomial
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  square(even, odd); // operator for two zero bits
  square(odd, even); // four zero bits
  let crc = crcA >>> 0;
  let len = lengthB;
  do {
    square(even, odd);
    if (len % 2 === 1) crc = times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    square(odd, even);
    if (len % 2 === 1) crc = times(odd, crc);
    len = Math.floor(len / 2);
  } while (len !== 0);
  return (crc ^ crcB) >>> 0;
}
