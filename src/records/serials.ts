/**
 * The serial column of a {@link SortedColumns}. No family reads a serial back, so a store keeps a
 * hash instead of the string (4 or 8 bytes a row instead of a reference and ~32 bytes):
 *
 * - `hash32`: 32-bit FNV-1a (never 0), the key the control charts tell records apart by; two
 *   records sharing station, series, millisecond and value collide with a chance of 2^-32.
 * - `hash53`: cyrb53, exact in a double, for counting distinct serials (collision about
 *   n² / 2^54: 1e-10 for 1,000 units).
 *
 * Equal times are ordered by key, the same in every process.
 */

import type { Words } from './words.ts';

/** How a column set holds serials. */
export type SerialForm = 'hash32' | 'hash53';

/** What a column set holds for a serial: its hash. */
export type SerialKey = number;

/** 32-bit FNV-1a of the serial's UTF-16 code units, 0 taken as 1 (0 means "no key" to the charts). */
export function serialHash32(serial: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < serial.length; i++) h = Math.imul(h ^ serial.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

/** cyrb53 (public domain, bryc): two 32-bit multiply-xorshift lanes folded into 53 bits. */
export function serialHash53(serial: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < serial.length; i++) {
    const ch = serial.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const LANE = 2 ** 32;

/**
 * One serial key per row, in lanes of the column set's {@link Words} (which move and count them):
 * a `hash32` in lane 1, a `hash53` in lanes 1 (low 32 bits) and 2 (the rest).
 */
export class SerialColumn {
  readonly keyOf: (serial: string) => SerialKey;
  private readonly wide: boolean;

  constructor(
    form: SerialForm,
    private readonly words: Words,
  ) {
    this.wide = form === 'hash53';
    this.keyOf = this.wide ? serialHash53 : serialHash32;
  }

  get(i: number): SerialKey {
    const low = this.words.get(1, i);
    return this.wide ? this.words.get(2, i) * LANE + low : low;
  }

  set(i: number, key: SerialKey): void {
    this.words.set(1, i, key >>> 0);
    if (this.wide) this.words.set(2, i, Math.floor(key / LANE));
  }

  /** A copy of rows `[start, end)`. */
  slice(start: number, end: number): ArrayLike<SerialKey> {
    if (!this.wide) return this.words.slice(1, start, end);
    return Float64Array.from({ length: end - start }, (_, j) => this.get(start + j));
  }
}
