/**
 * The repeated columns of a {@link SortedColumns}: values a series repeats from record to record
 * (limits, outcome, direction, slot). Each distinct combination is held once; a row holds its
 * code, one byte up to 256 combinations, nothing at all while there is only one (the usual case).
 */

/** Combinations beyond which lookups go through a map instead of a scan. */
const SCAN_LIMIT = 16;
/** Compacted on eviction from this many combinations, and twice as many as the last time. */
const COMPACT_FROM = 16;

type Codes = Uint8Array | Uint16Array | Uint32Array;

/** Distinct combinations of `width` columns, and the code of each row's. */
export class RepeatedColumns {
  private table: number[] = [];
  private count = 0;
  private index: Map<string, number> | undefined;
  /** Codes by row; absent while every row has code 0. */
  private codes: Codes | undefined;
  private lastCode = 0;
  private compactedAt = 0;

  constructor(readonly width: number) {}

  /** The code of the combination `values[from .. from + width)`, added to the table when new. */
  intern(values: ArrayLike<number>, from: number): number {
    if (this.width === 0) return 0;
    if (this.count > 0 && this.matches(this.lastCode, values, from)) return this.lastCode;
    let code = this.find(values, from);
    if (code < 0) code = this.add(values, from);
    this.lastCode = code;
    return code;
  }

  /** Value of repeated column `col` of the combination `code`. */
  valueOf(code: number, col: number): number {
    return this.table[code * this.width + col] ?? Number.NaN;
  }

  /** Value of repeated column `col` at row `i`. */
  value(col: number, i: number): number {
    return this.valueOf(this.code(i), col);
  }

  code(i: number): number {
    return this.codes === undefined ? 0 : (this.codes[i] as number);
  }

  /** Sets row `i`'s code; `capacity` is the column set's, for a code array made now. */
  setCode(i: number, code: number, capacity: number): void {
    if (this.codes === undefined) {
      if (code === 0) return;
      this.codes = codesFor(this.count, capacity);
    } else if (code > maxCode(this.codes)) {
      this.codes = widened(this.codes, this.count);
    }
    this.codes[i] = code;
  }

  copyWithin(target: number, start: number, end: number): void {
    this.codes?.copyWithin(target, start, end);
  }

  /** A copy of the codes of rows `[start, end)`, or undefined when all are 0. */
  slice(start: number, end: number): ArrayLike<number> | undefined {
    return this.codes?.slice(start, end);
  }

  /** Moves the first `size` rows to a column of `capacity` rows. */
  resize(capacity: number, size: number): void {
    if (this.codes === undefined) return;
    const next = codesFor(this.count, capacity);
    next.set(this.codes.subarray(0, Math.min(size, capacity)));
    this.codes = next;
  }

  /** After an eviction, once the table has grown, keeps only the combinations the rows use. */
  compact(size: number): void {
    if (size === 0) {
      this.clear();
      return;
    }
    if (this.count < COMPACT_FROM || this.count < 2 * this.compactedAt) return;
    const remap = new Int32Array(this.count).fill(-1);
    const table: number[] = [];
    for (let i = 0; i < size; i++) {
      const code = this.code(i);
      if (remap[code] === -1) {
        remap[code] = table.length / this.width;
        for (let c = 0; c < this.width; c++) table.push(this.valueOf(code, c));
      }
    }
    this.table = table;
    this.count = table.length / this.width;
    this.compactedAt = this.count;
    this.lastCode = 0;
    this.index = undefined;
    if (this.count > SCAN_LIMIT) this.reindex();
    const codes = this.codes;
    if (codes === undefined) return;
    this.codes = this.count === 1 ? undefined : codesFor(this.count, codes.length);
    if (this.codes !== undefined)
      for (let i = 0; i < size; i++) this.codes[i] = remap[codes[i] as number] as number;
  }

  /** Bytes of the table and the codes. */
  bytes(): number {
    return this.table.length * 8 + (this.codes?.byteLength ?? 0);
  }

  private clear(): void {
    this.table = [];
    this.count = 0;
    this.index = undefined;
    this.codes = undefined;
    this.lastCode = 0;
    this.compactedAt = 0;
  }

  private matches(code: number, values: ArrayLike<number>, from: number): boolean {
    for (let c = 0; c < this.width; c++)
      if (!Object.is(this.table[code * this.width + c], values[from + c])) return false;
    return true;
  }

  private find(values: ArrayLike<number>, from: number): number {
    if (this.index !== undefined) return this.index.get(keyOf(values, from, this.width)) ?? -1;
    for (let code = 0; code < this.count; code++) if (this.matches(code, values, from)) return code;
    return -1;
  }

  private add(values: ArrayLike<number>, from: number): number {
    if (this.count < SCAN_LIMIT) {
      // An array of the exact length: push would leave room for a dozen more.
      this.table = this.table.concat(
        Array.from({ length: this.width }, (_, c) => values[from + c] as number),
      );
    } else {
      for (let c = 0; c < this.width; c++) this.table.push(values[from + c] as number);
    }
    const code = this.count++;
    if (this.index !== undefined) this.index.set(keyOf(values, from, this.width), code);
    else if (this.count > SCAN_LIMIT) this.reindex();
    return code;
  }

  private reindex(): void {
    this.index = new Map();
    for (let code = 0; code < this.count; code++)
      this.index.set(keyOf(this.table, code * this.width, this.width), code);
  }
}

/** A map key of a combination that tells -0 from 0, as the columns' comparisons do. */
function keyOf(values: ArrayLike<number>, from: number, width: number): string {
  let key = '';
  for (let c = 0; c < width; c++) {
    const v = values[from + c] as number;
    key += `${Object.is(v, -0) ? '-0' : v},`;
  }
  return key;
}

function codesFor(count: number, capacity: number): Codes {
  if (count <= 0x100) return new Uint8Array(capacity);
  if (count <= 0x10000) return new Uint16Array(capacity);
  return new Uint32Array(capacity);
}

function maxCode(codes: Codes): number {
  return 2 ** (codes.BYTES_PER_ELEMENT * 8) - 1;
}

function widened(codes: Codes, count: number): Codes {
  const next = codesFor(count, codes.length);
  next.set(codes);
  return next;
}
