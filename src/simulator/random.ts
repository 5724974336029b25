/**
 * Counter-based pseudo-randomness: every random quantity is a hash of its coordinates, so any
 * time window can be generated on its own and the same coordinates always give the same value.
 */

const TWO_POW_32 = 4294967296;

function mix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hashes a list of integers (any magnitude up to 2^53) into an unsigned 32-bit integer. */
export function hashInts(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    const lo = part >>> 0;
    const hi = Math.floor(part / TWO_POW_32) >>> 0;
    h = mix(h ^ lo) + 0x632be5ab;
    h = mix(h ^ hi) + 0x85ebca6b;
  }
  return mix(h);
}

/** A uniform number in [0, 1) derived from the given coordinates. */
export function uniform(...parts: number[]): number {
  return hashInts(...parts) / TWO_POW_32;
}

/** A roughly standard-normal number (Irwin-Hall with four terms), cheap and bounded to ±3.5. */
export function gaussian(...parts: number[]): number {
  const h = hashInts(...parts);
  const a = mix(h ^ 0x1b873593) / TWO_POW_32;
  const b = mix(h ^ 0xcc9e2d51) / TWO_POW_32;
  const c = mix(h ^ 0xe6546b64) / TWO_POW_32;
  const d = h / TWO_POW_32;
  return (a + b + c + d - 2) * Math.sqrt(3);
}

/** FNV-1a of a string, used to turn names and paths into hash coordinates. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A 24-hex-character identifier derived from the seed and a path such as "site/0/line/1". */
export function hexId(seed: number, path: string, salt = 0): string {
  const base = hashString(path);
  let out = '';
  for (let i = 0; i < 3; i++) out += hashInts(seed, base, salt, i).toString(16).padStart(8, '0');
  return out;
}

/** Picks an element of a non-empty array from a uniform number in [0, 1). */
export function pick<T>(items: readonly T[], u: number): T {
  const item = items[Math.min(items.length - 1, Math.floor(u * items.length))];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Named purposes keep hash coordinates of different quantities apart. */
export const Purpose = {
  entry: 1,
  exists: 2,
  choose: 3,
  cycle: 4,
  result: 5,
  retryDelay: 6,
  transport: 7,
  slot: 8,
  mode: 9,
  unitType: 10,
  value: 11,
  failPick: 12,
  empty: 13,
  inserted: 14,
  fault: 15,
  faultJitter: 16,
  plant: 17,
  measure: 18,
  // The realistic plant's own draws, apart from every textbook one.
  noise: 19,
  product: 20,
  stop: 21,
  rates: 22,
  slotOffset: 23,
} as const;

/**
 * Variates drawn one after another from one hash, for draws that need several. The normal is an
 * exact Box–Muller one, not the bounded {@link gaussian}: a realistic shape's tails must be its own.
 */
export class HashVariates {
  #h: number;
  #counter = 0;
  #spare: number | undefined;

  constructor(h: number) {
    this.#h = h;
  }

  /** Starts over from another hash, so one object serves a whole sequence of draws. */
  reset(h: number): this {
    this.#h = h;
    this.#counter = 0;
    this.#spare = undefined;
    return this;
  }

  uniform(): number {
    return mix(this.#h ^ mix(++this.#counter + 0x27d4eb2f)) / TWO_POW_32;
  }

  normal(): number {
    if (this.#spare !== undefined) {
      const z = this.#spare;
      this.#spare = undefined;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.uniform()));
    const a = 2 * Math.PI * this.uniform();
    this.#spare = r * Math.sin(a);
    return r * Math.cos(a);
  }
}
