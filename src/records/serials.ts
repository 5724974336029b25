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

/** One serial key per row. */
export interface SerialColumn {
  keyOf(serial: string): SerialKey;
  get(i: number): SerialKey;
  set(i: number, key: SerialKey): void;
  copyWithin(target: number, start: number, end: number): void;
  /** A copy of rows `[start, end)`. */
  slice(start: number, end: number): ArrayLike<SerialKey>;
  /** Moves the first `size` rows to a column of `capacity` rows. */
  resize(capacity: number, size: number): void;
  truncate(size: number): void;
  /** Bytes of its own array (a lane counts with its words). */
  bytes(): number;
}

/** Where a column set keeps its columns: a lane of its {@link Words} for a 32-bit hash. */
export interface SerialPlace {
  readonly capacity: number;
  readonly words: Words;
  readonly lane: number;
}

/** The column for `form`. */
export function serialColumn(form: SerialForm, place: SerialPlace): SerialColumn {
  if (form === 'hash32') return new LaneSerials(place);
  return new WideSerials(place.capacity);
}

/** 32-bit hashes in a lane of the column set's {@link Words}, which moves and counts them. */
class LaneSerials implements SerialColumn {
  private readonly words: Words;
  private readonly lane: number;

  constructor(place: SerialPlace) {
    this.words = place.words;
    this.lane = place.lane;
  }

  keyOf(serial: string): number {
    return serialHash32(serial);
  }

  get(i: number): number {
    return this.words.get(this.lane, i);
  }

  set(i: number, key: SerialKey): void {
    this.words.set(this.lane, i, key);
  }

  copyWithin(_target: number, _start: number, _end: number): void {}

  slice(start: number, end: number): ArrayLike<number> {
    return this.words.slice(this.lane, start, end);
  }

  resize(_capacity: number, _size: number): void {}

  truncate(_size: number): void {}

  bytes(): number {
    return 0;
  }
}

/** 53-bit hashes, one double each. */
class WideSerials implements SerialColumn {
  private keys: Float64Array;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
  }

  keyOf(serial: string): number {
    return serialHash53(serial);
  }

  get(i: number): number {
    return this.keys[i] ?? 0;
  }

  set(i: number, key: SerialKey): void {
    this.keys[i] = key;
  }

  copyWithin(target: number, start: number, end: number): void {
    this.keys.copyWithin(target, start, end);
  }

  slice(start: number, end: number): ArrayLike<number> {
    return this.keys.slice(start, end);
  }

  resize(capacity: number, size: number): void {
    const next = new Float64Array(capacity);
    next.set(this.keys.subarray(0, Math.min(size, capacity)));
    this.keys = next;
  }

  truncate(_size: number): void {}

  bytes(): number {
    return this.keys.byteLength;
  }
}
