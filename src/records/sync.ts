/**
 * Keeps an in-memory record store in step with the upstream: one incremental fetch per poll, plus
 * the part of the re-read sweep due ({@link RereadSweep}), then records that left the longest
 * window are dropped. Future-dated records are skipped and late ones counted ({@link SyncResult}).
 */
import type { Logger } from 'pino';
import type { LoopYielder } from '../util/loop-yield.ts';
import { getOrCreate } from '../util/maps.ts';
import { DEFAULT_MAX_SPAN_MS, fetchIncremental, type IncrementalFetchResult } from './fetch.ts';
import type { RefusedStations } from './refused.ts';
import { RereadSweep, type SweepRange } from './sweep.ts';
import type { RecordSource, RecordStore, Timed } from './types.ts';

/** What the sync needs of a record besides its time. */
export interface SyncedRecord extends Timed {
  readonly stationId: string;
  /** `time_inserted` (epoch ms) when the upstream sent one. */
  readonly inserted?: number;
}

export interface RecordSyncOptions<R extends SyncedRecord> {
  readonly collector: string;
  readonly source: RecordSource<R>;
  readonly store: RecordStore<R>;
  readonly overlapMs: number;
  /** How long one sweep re-reading the whole longest window takes. */
  readonly rereadIntervalMs: number;
  /** Records dated more than this after `now` are counted and skipped. */
  readonly maxFutureSkewMs: number;
  readonly maxRecords: number;
  readonly maxUrlLength: number;
  readonly logger: Logger;
  readonly yielder: LoopYielder;
  /** Stations refused with 403, shared by the record collectors. */
  readonly refused?: RefusedStations;
  /** Records to keep; default all. */
  readonly accept?: (record: R) => boolean;
}

/** One sync's inputs: which stations to hold, the end of every span and the oldest time kept. */
export interface SyncRequest {
  readonly stationIds: readonly string[];
  readonly now: number;
  /** Epoch ms: the start of the longest window. */
  readonly retainFrom: number;
  readonly signal?: AbortSignal;
}

/** What one sync did, besides the fetch's own counts. Station keys are lower-case ids. */
export interface SyncResult extends IncrementalFetchResult {
  readonly swept?: SweepRange;
  /** Records skipped because they were dated more than the skew after `now`, by station. */
  readonly future: ReadonlyMap<string, number>;
  /**
   * New records later than the overlap, by station: `time_inserted` more than the overlap after
   * `time_created`, or (without it) older than the station's incremental read (found by the sweep).
   */
  readonly late: ReadonlyMap<string, number>;
}

/** Records between two yields to the event loop: at 5 to 10 µs each, a slice stays near 10 ms. */
const STORE_SLICE = 1000;

const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** One poll's records into the store: future-dated ones counted and left out, late new ones counted. */
class Arrivals<R extends SyncedRecord> {
  readonly future = new Map<string, number>();
  readonly late = new Map<string, number>();
  readonly #opts: RecordSyncOptions<R>;
  readonly #now: number;
  /** Where each station's incremental read starts: a new record older than that is late. */
  readonly #cutoffs = new Map<string, number>();

  constructor(
    opts: RecordSyncOptions<R>,
    poll: { readonly now: number; readonly watermarks: ReadonlyMap<string, number> },
  ) {
    this.#opts = opts;
    this.#now = poll.now;
    for (const [id, mark] of poll.watermarks) this.#cutoffs.set(id.toLowerCase(), mark - opts.overlapMs);
  }

  take(slice: readonly R[]): void {
    const { store, accept, maxFutureSkewMs } = this.#opts;
    const onTime: R[] = [];
    const lateByStation = new Map<string, R[]>();
    for (const r of slice) {
      if (accept && !accept(r)) continue;
      const station = r.stationId.toLowerCase();
      if (r.time > this.#now + maxFutureSkewMs) bump(this.future, station);
      else if (!this.#isLate(r, station)) onTime.push(r);
      else getOrCreate(lateByStation, station, () => []).push(r);
    }
    store.add(onTime);
    // Only records new to the store are late: a late record seen again is not counted again.
    for (const [station, records] of lateByStation) {
      const added = Number(store.add(records)) || 0;
      if (added > 0) bump(this.late, station, added);
    }
  }

  #isLate(r: R, station: string): boolean {
    const inserted = r.inserted !== undefined && r.inserted - r.time > this.#opts.overlapMs;
    return inserted || r.time < (this.#cutoffs.get(station) ?? Number.NEGATIVE_INFINITY);
  }
}

/** Creates the sync; each call fetches what is new and says what it asked of the upstream. */
export function createRecordSync<R extends SyncedRecord>(
  opts: RecordSyncOptions<R>,
): (req: SyncRequest) => Promise<SyncResult> {
  const { store, yielder } = opts;
  const sweep = new RereadSweep(opts.rereadIntervalMs, DEFAULT_MAX_SPAN_MS);
  let watermarks = new Map<string, number>();
  return async ({ stationIds, now, retainFrom, signal }) => {
    store.retainStations(new Set(stationIds));
    const arrivals = new Arrivals(opts, { now, watermarks });
    const common = {
      source: opts.source,
      maxUrlLength: opts.maxUrlLength,
      maxRecords: opts.maxRecords,
      onRecords: (records: readonly R[]) =>
        yielder.forEachSlice(records, STORE_SLICE, (slice) => arrivals.take(slice)),
      signal,
      refused: opts.refused,
    };
    // Only stations read before can have missed older records; the others read their whole window.
    const known = stationIds.filter((id) => watermarks.has(id) && !opts.refused?.has(id));
    let end = known.length > 0 ? now : Number.NEGATIVE_INFINITY;
    for (const id of known) end = Math.min(end, watermarks.get(id)! - opts.overlapMs);
    // The first sweep starts with the first poll, which reads the whole window.
    const range = sweep.next(now, retainFrom, end);
    const [fetched, swept] = await Promise.all([
      fetchIncremental({ ...common, stationIds, watermarks, now, retainFrom, overlapMs: opts.overlapMs }),
      range &&
        fetchIncremental({
          ...common,
          stationIds: known,
          watermarks: new Map(),
          now: range.to,
          pollTime: now,
          retainFrom: range.from,
          overlapMs: 0,
        }),
    ]);
    watermarks = fetched.watermarks;
    if (range && swept?.failures === 0) sweep.done(range, now, retainFrom);
    store.evictBefore(retainFrom);
    const { future, late } = arrivals;
    const result = { ...merge(fetched, swept), ...(range ? { swept: range } : {}), future, late };
    report(opts, result, store.size());
    return result;
  };
}

/** One poll's fetch counts: the incremental read's, plus the sweep's requests and failures. */
function merge(fetched: IncrementalFetchResult, swept?: IncrementalFetchResult): IncrementalFetchResult {
  if (!swept) return fetched;
  // A failed sweep range moves no watermark: it is read again next poll.
  const sum = { ...fetched, firstError: fetched.firstError ?? swept.firstError };
  for (const k of ['requests', 'splits', 'truncated', 'failures', 'notSent'] as const) sum[k] += swept[k];
  return sum;
}

const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * What a sync did, `held` records in the store after it: failures keep the stations' spans for
 * the next poll; one log line per poll for each kind of suspicious record, not one per record.
 */
function report<R extends SyncedRecord>(opts: RecordSyncOptions<R>, s: SyncResult, held: number): void {
  const collector = opts.collector;
  const fields = { collector, requests: s.requests, splits: s.splits, records_held: held };
  opts.logger.debug(fields, 'records fetched');
  if (s.truncated > 0) {
    opts.logger.warn(
      { ...fields, truncated: s.truncated },
      'answers still reached max_records_per_request for one station and the smallest span; some records may be missing',
    );
  }
  if (s.failures > 0) {
    opts.logger.warn(
      {
        ...fields,
        failures: s.failures,
        not_sent: s.notSent,
        stations: s.failedStations,
        err: s.firstError?.message,
      },
      'some record requests failed; their stations keep their data and are fetched again next poll',
    );
  }
  const suspicious = [
    {
      byStation: s.future,
      fields: { max_future_skew_ms: opts.maxFutureSkewMs },
      msg: "records dated in the future were skipped: check the stations' clocks and their tz, or upstream.naive_time_zone",
    },
    {
      byStation: s.late,
      fields: { overlap_ms: opts.overlapMs, swept: Boolean(s.swept) },
      msg: 'records arrived later than the overlap; they were picked up now, consider a longer overlap',
    },
  ];
  for (const { byStation, fields, msg } of suspicious) {
    if (byStation.size === 0) continue;
    opts.logger.warn({ collector, records: total(byStation), stations: byStation.size, ...fields }, msg);
  }
}
