/**
 * Several 32-bit columns of a {@link SortedColumns} in one Uint32Array, a lane of `capacity` each:
 * a typed array costs ~200 bytes of heap, a byte a record for a series of 200.
 */
export class Words {
  private words: Uint32Array;
  private cap: number;

  constructor(
    readonly lanes: number,
    capacity: number,
  ) {
    this.cap = capacity;
    this.words = new Uint32Array(lanes * capacity);
  }

  /** The array of every lane, for a binary search over one (see {@link laneStart}). */
  get array(): Uint32Array {
    return this.words;
  }

  /** Where `lane` starts in {@link array}. */
  laneStart(lane: number): number {
    return lane * this.cap;
  }

  get(lane: number, i: number): number {
    return this.words[lane * this.cap + i] as number;
  }

  set(lane: number, i: number, v: number): void {
    this.words[lane * this.cap + i] = v;
  }

  /** Copies rows `[start, end)` of every lane to `target`. */
  copyWithin(target: number, start: number, end: number): void {
    for (let l = 0; l < this.lanes; l++) {
      const at = l * this.cap;
      this.words.copyWithin(at + target, at + start, at + end);
    }
  }

  /** A copy of rows `[start, end)` of `lane`. */
  slice(lane: number, start: number, end: number): Uint32Array {
    const at = lane * this.cap;
    return this.words.slice(at + start, at + end);
  }

  /** Moves the first `size` rows of every lane to lanes of `capacity` rows. */
  resize(capacity: number, size: number): void {
    const next = new Uint32Array(this.lanes * capacity);
    const n = Math.min(size, capacity);
    for (let l = 0; l < this.lanes; l++)
      next.set(this.words.subarray(l * this.cap, l * this.cap + n), l * capacity);
    this.words = next;
    this.cap = capacity;
  }

  bytes(): number {
    return this.words.byteLength;
  }
}
