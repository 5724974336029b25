/**
 * The gate between the records of names charted per product and their charts. A record carries its
 * unit's serial, not its product, which comes from the unit records (records/products.ts); those
 * are dated at or before its measurements, so once the units job has completed a poll at or after a
 * point's time, the product is known or never will be. Points wait here until then and are released
 * in time order; unknown, too long waiting ({@link MAX_WAIT_MS}) or beyond {@link MAX_PENDING}, they
 * are skipped and counted. A waiting point costs 40 bytes: at most 40 MB at the cap.
 */
import type { ProductLookup } from '../../records/products.ts';
import { serialProductKey } from '../../records/products.ts';
import { getOrCreate } from '../../util/maps.ts';

/** Longest a point waits for its unit's records: beyond it, it could no longer enter its chart. */
const MAX_WAIT_MS = 60 * 60_000;
/** Points waiting at most: a day of history of 1,000 charts at a point every 2 minutes is 720,000. */
const MAX_PENDING = 1_000_000;

/** A point's series, before its product is known. */
export interface GateSeries {
  readonly stationId: string;
  readonly name: string;
  readonly slot: string | null;
}

/** A point let through, with its product. */
export interface ReleasedPoint {
  readonly series: GateSeries;
  readonly product: string;
  readonly time: number;
  readonly value: number;
  /** A hash of its serial, for a chart still loading its history. */
  readonly key: number;
}

/** Points skipped since the last {@link ProductGate.takeSkipped}, by reason. */
export type SkippedPoints = ReadonlyMap<string, number>;

/** Points waiting for their unit's product. */
export class ProductGate {
  readonly #lookup: ProductLookup;
  readonly #maxPending: number;
  #times = new Float64Array(1024);
  #values = new Float64Array(1024);
  #serials = new Float64Array(1024);
  /** The first release a point waited at (NaN until then). */
  #since = new Float64Array(1024);
  #keys = new Uint32Array(1024);
  #series = new Uint32Array(1024);
  #size = 0;
  readonly #seriesIds = new Map<string, number>();
  #seriesList: GateSeries[] = [];
  readonly #skipped = new Map<string, number>();

  constructor(lookup: ProductLookup, opts: { readonly maxPending?: number } = {}) {
    this.#lookup = lookup;
    this.#maxPending = opts.maxPending ?? MAX_PENDING;
  }

  get size(): number {
    return this.#size;
  }

  /** Takes a point of a series charted per product; it waits until {@link ProductGate.release}. */
  offer(
    series: GateSeries,
    point: { readonly time: number; readonly value: number; readonly serial: string; readonly key: number },
  ): void {
    if (this.#size >= this.#maxPending) this.#dropOldest();
    if (this.#size === this.#times.length) this.#grow();
    const i = this.#size++;
    this.#times[i] = point.time;
    this.#values[i] = point.value;
    this.#serials[i] = serialProductKey(point.serial);
    this.#since[i] = Number.NaN;
    this.#keys[i] = point.key;
    this.#series[i] = this.#seriesId(series);
  }

  /**
   * Lets through, in time order, the points whose unit's records have all been read. The wait counts
   * from the first release a point saw: history fetched at a start is old when it comes.
   */
  release(nowMs: number, take: (p: ReleasedPoint) => void): void {
    const coveredTo = this.#lookup.coverage?.to ?? Number.NEGATIVE_INFINITY;
    const order = this.#order();
    let kept = 0;
    const keep: number[] = [];
    for (const i of order) {
      const time = this.#times[i] as number;
      if (Number.isNaN(this.#since[i])) this.#since[i] = nowMs;
      if (time <= coveredTo) this.#resolve(i, take);
      else if ((this.#since[i] as number) < nowMs - MAX_WAIT_MS) this.#skip('product_wait_exceeded');
      else keep[kept++] = i;
    }
    this.#compact(keep);
    if (this.#size === 0 && this.#seriesList.length > 0) {
      this.#seriesIds.clear();
      this.#seriesList = [];
    }
  }

  /** Skipped since the last call, by reason. */
  takeSkipped(): SkippedPoints {
    const out = new Map(this.#skipped);
    this.#skipped.clear();
    return out;
  }

  #resolve(i: number, take: (p: ReleasedPoint) => void): void {
    const product = this.#lookup.getByKey(this.#serials[i] as number);
    if (product === undefined) {
      this.#skip('product_unknown');
      return;
    }
    take({
      series: this.#seriesList[this.#series[i] as number] as GateSeries,
      product,
      time: this.#times[i] as number,
      value: this.#values[i] as number,
      key: this.#keys[i] as number,
    });
  }

  #skip(reason: string): void {
    this.#skipped.set(reason, (this.#skipped.get(reason) ?? 0) + 1);
  }

  #order(): number[] {
    const order = Array.from({ length: this.#size }, (_, i) => i);
    const times = this.#times;
    return order.sort((a, b) => (times[a] as number) - (times[b] as number) || a - b);
  }

  #compact(keep: readonly number[]): void {
    const arrays = [this.#times, this.#values, this.#serials, this.#since, this.#keys, this.#series] as const;
    const copies = arrays.map((a) => a.slice(0, this.#size));
    keep.forEach((from, to) => {
      arrays.forEach((a, c) => {
        a[to] = (copies[c] as typeof a)[from] as number;
      });
    });
    this.#size = keep.length;
  }

  /** Drops the oldest eighth of the waiting points at once: a flood costs one sort per eighth. */
  #dropOldest(): void {
    const order = this.#order();
    const drop = Math.max(1, Math.floor(order.length / 8));
    this.#skipped.set('product_pending_full', (this.#skipped.get('product_pending_full') ?? 0) + drop);
    this.#compact(order.slice(drop));
  }

  #grow(): void {
    const grow = <T extends Float64Array | Uint32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(2 * a.length);
      b.set(a);
      return b;
    };
    this.#times = grow(this.#times);
    this.#values = grow(this.#values);
    this.#serials = grow(this.#serials);
    this.#since = grow(this.#since);
    this.#keys = grow(this.#keys);
    this.#series = grow(this.#series);
  }

  #seriesId(s: GateSeries): number {
    const id = `${s.stationId}\u0000${s.name}\u0000${s.slot ?? ''}\u0001${s.slot === null ? 0 : 1}`;
    return getOrCreate(this.#seriesIds, id, () => this.#seriesList.push(s) - 1);
  }
}
