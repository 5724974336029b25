/**
 * Products of units, for the measurement records that name a serial but not its `unit_type`. The
 * units job writes each serial's product and how far it has read; the per-product control charts
 * read both (docs/measurements.md, "Products"). Memory is bounded: two generations of an
 * open-addressing table (a 53-bit hash and a one-byte code, load at most one half), at most
 * 2 × 2^19 slots × 9 bytes = 9.4 MB, whatever the plant.
 */
import { serialHash53 } from './serials.ts';

/**
 * The newest 2^18 to 2^19 units are known, 15 to 30 hours of 500 lines: a measurement needs its
 * unit's product only until the unit's records are read, minutes later, or a day back at a start.
 */
const SERIALS_PER_GENERATION = 1 << 18;
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

/** Options of {@link SerialProducts}: serials per generation. */
export interface SerialProductsOptions {
  readonly perGeneration?: number;
}

/** Each serial's product label value and how far the units job has read; the measurements job reads it. */
export class SerialProducts {
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

  /** The product label value of a serial by its {@link serialProductKey}; undefined when none was seen. */
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
    return BYTES_PER_SLOT * (this.#current.keys.length + (this.#previous?.keys.length ?? 0));
  }
}

/** What a reader of the index needs: products by serial key, and how far the units job has read. */
export type ProductLookup = Pick<SerialProducts, 'getByKey' | 'coverage'>;

/** The key of a serial in the index: its 53-bit hash, never 0 (0 marks an empty slot). */
export function serialProductKey(serial: string): number {
  return serialHash53(serial) || 1;
}
