/**
 * Products of units, for the records that do not carry one. A measurement record names its unit's
 * serial but not its `unit_type`; the unit records do. The units job writes each serial's product
 * here as its records arrive, and the time up to which it has read every unit record; the control
 * charts keyed per product read both (docs/measurements.md, "Products").
 *
 * Memory is bounded: serials live in two generations of an open-addressing table (a 53-bit hash
 * of the serial, 8 bytes, and a one-byte product code per slot, at a load of at most one half), so
 * the index holds the latest {@link SERIALS_PER_GENERATION} to twice that many serials, at 18 to
 * 36 bytes each: at most 2 × 2^19 slots × 9 bytes = 9.4 MB, whatever the plant.
 */
import { serialHash53 } from './serials.ts';

/**
 * Serials per generation: the newest 262,144 to 524,288 units are known, some 15 to 30 hours of
 * 500 lines at 30 units an hour; a measurement needs its unit's product only until its unit's
 * records have been read, minutes after it was made, or a day back at a start.
 */
const SERIALS_PER_GENERATION = 1 << 18;
/** Bytes per slot of a table: the hash (8) and the product code (1). */
const BYTES_PER_SLOT = 9;
const MIN_SLOTS = 1024;

/** One generation: hashes (0: an empty slot) and product codes, linear probing. */
class SerialTable {
  keys: Float64Array;
  codes: Uint8Array;
  size = 0;

  constructor(slots = MIN_SLOTS) {
    this.keys = new Float64Array(slots);
    this.codes = new Uint8Array(slots);
  }

  get slots(): number {
    return this.keys.length;
  }

  /** The slot holding `hash`, or the empty slot where it would go. */
  #slotOf(hash: number): number {
    const mask = this.keys.length - 1;
    // The low 32 bits of the hash are well mixed (cyrb53's first lane).
    let i = (hash >>> 0) & mask;
    while (this.keys[i] !== 0 && this.keys[i] !== hash) i = (i + 1) & mask;
    return i;
  }

  get(hash: number): number | undefined {
    const i = this.#slotOf(hash);
    return this.keys[i] === hash ? this.codes[i] : undefined;
  }

  set(hash: number, code: number): void {
    if (2 * (this.size + 1) > this.keys.length) this.#grow();
    const i = this.#slotOf(hash);
    if (this.keys[i] !== hash) {
      this.keys[i] = hash;
      this.size++;
    }
    this.codes[i] = code;
  }

  #grow(): void {
    const { keys, codes } = this;
    this.keys = new Float64Array(2 * keys.length);
    this.codes = new Uint8Array(2 * keys.length);
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j] as number;
      if (k !== 0) {
        const i = this.#slotOf(k);
        this.keys[i] = k;
        this.codes[i] = codes[j] as number;
      }
    }
  }
}

/** The time span whose unit records have all been read, Unix ms (closed). */
export interface ProductCoverage {
  readonly from: number;
  readonly to: number;
}

/** Options of {@link SerialProducts}. */
export interface SerialProductsOptions {
  /** Serials per generation; default {@link SERIALS_PER_GENERATION}. */
  readonly perGeneration?: number;
}

/** What a reader of the index needs: products by serial key, and how far the units job has read. */
export interface ProductLookup {
  getByKey(key: number): string | undefined;
  readonly coverage: ProductCoverage | undefined;
}

/**
 * Each unit serial's product label value, and how far the units job has read. Shared: the units
 * job writes it, the measurements job reads it.
 */
export class SerialProducts implements ProductLookup {
  readonly #perGeneration: number;
  #current = new SerialTable();
  #previous: SerialTable | undefined;
  #labels: string[] = [];
  readonly #codes = new Map<string, number>();
  #coverage: ProductCoverage | undefined;

  constructor(opts: SerialProductsOptions = {}) {
    this.#perGeneration = opts.perGeneration ?? SERIALS_PER_GENERATION;
  }

  /** Forgets every serial and the coverage: a new units job (and its labels) starts over. */
  restart(): void {
    this.#current = new SerialTable();
    this.#previous = undefined;
    this.#labels = [];
    this.#codes.clear();
    this.#coverage = undefined;
  }

  /** Notes a unit's product label value (the latest note of a serial wins). */
  set(serial: string, product: string): void {
    let code = this.#codes.get(product);
    if (code === undefined) {
      // Label values come from a bounded allow-list; a code is one byte.
      if (this.#labels.length > 255) return;
      code = this.#labels.push(product) - 1;
      this.#codes.set(product, code);
    }
    if (this.#current.size >= this.#perGeneration) {
      this.#previous = this.#current;
      this.#current = new SerialTable();
    }
    this.#current.set(serialProductKey(serial), code);
  }

  /** A serial's product label value, undefined when none of its unit records was seen. */
  get(serial: string): string | undefined {
    return this.getByKey(serialProductKey(serial));
  }

  /** The product label value of a serial by its {@link serialProductKey}. */
  getByKey(key: number): string | undefined {
    const code = this.#current.get(key) ?? this.#previous?.get(key);
    return code === undefined ? undefined : this.#labels[code];
  }

  /** Records that every unit record dated in `coverage` has been read (after a complete poll). */
  cover(coverage: ProductCoverage): void {
    this.#coverage = coverage;
  }

  /** What {@link SerialProducts.cover} last recorded; undefined before the first complete poll. */
  get coverage(): ProductCoverage | undefined {
    return this.#coverage;
  }

  /** Serials held (both generations). */
  get size(): number {
    return this.#current.size + (this.#previous?.size ?? 0);
  }

  /** Bytes of the tables (both generations). */
  get bytes(): number {
    return BYTES_PER_SLOT * (this.#current.slots + (this.#previous?.slots ?? 0));
  }
}

/** The key of a serial in the index: its 53-bit hash, never 0 (0 marks an empty slot). */
export function serialProductKey(serial: string): number {
  return serialHash53(serial) || 1;
}
