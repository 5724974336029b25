/**
 * Keeps an in-memory record store in step with the upstream, for the collectors that read
 * record lists (`measurements`, `units`): one incremental fetch per poll, a deeper re-read of
 * the whole longest window every `rereadIntervalMs`, then the records that left the longest
 * window are dropped. Records dated in the future are counted and left out; records that
 * arrived later than the overlap are counted (see {@link SyncResult}).
 */
import type { Logger } from 'pino';
import type { Turns } from '../util/turns.ts';
import { fetchIncremental, type IncrementalFetchResult, reportFetch } from './fetch.ts';
import type { RefusedStations } from './refused.ts';
import type { RecordSource, RecordStore, Timed } from './types.ts';

/** What the sync needs of a record besides its time. */
export interface SyncedRecord extends Timed {
  readonly stationId: string;
  /** `time_inserted` (epoch ms) when the upstream sent one. */
  readonly inserted?: number;
}

export interface RecordSyncOptions<R extends SyncedRecord> {
  /** The collector's name, for log lines. */
  readonly collector: string;
  readonly source: RecordSource<R>;
  readonly store: RecordStore<R>;
  readonly overlapMs: number;
  /** How often the whole longest window is read again instead of only the overlap. */
  readonly rereadIntervalMs: number;
  /** Records dated more than this after `now` are counted and skipped. */
  readonly maxFutureSkewMs: number;
  readonly maxRecords: number;
  readonly maxUrlLength: number;
  readonly logger: Logger;
  readonly turns: Turns;
  /** Stations refused with 403, shared by the record collectors; see {@link RefusedStations}. */
  readonly refused?: RefusedStations;
  /** Records to keep; default all. */
  readonly accept?: (record: R) => boolean;
}

/** One sync's inputs: which stations to hold, the end of every span and the oldest time kept. */
export interface SyncRequest {
  readonly stationIds: readonly string[];
  /** Epoch ms. */
  readonly now: number;
  /** Epoch ms: the start of the longest window. */
  readonly retainFrom: number;
  readonly signal?: AbortSignal;
}

/** What one sync did, besides the fetch's own counts. Station keys are lower-case ids. */
export interface SyncResult extends IncrementalFetchResult {
  /** True when this poll re-read the whole longest window. */
  readonly deep: boolean;
  /** Records skipped because they were dated more than the skew after `now`, by station. */
  readonly future: ReadonlyMap<string, number>;
  /**
   * New records that arrived later than the overlap, by station: their `time_inserted` is more
   * than the overlap after their `time_created`, or (without `time_inserted`) they were found
   * older than the start of the station's incremental read, i.e. only by a deeper re-read.
   */
  readonly late: ReadonlyMap<string, number>;
}

/** Records added to the store between two turns of the event loop. */
const STORE_SLICE = 5000;

const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** Creates the sync; each call fetches what is new and says what it asked of the upstream. */
export function createRecordSync<R extends SyncedRecord>(
  opts: RecordSyncOptions<R>,
): (req: SyncRequest) => Promise<SyncResult> {
  const { store, accept, turns } = opts;
  let watermarks = new Map<string, number>();
  let lastDeep: number | undefined;
  return async ({ stationIds, now, retainFrom, signal }) => {
    store.retainStations(new Set(stationIds));
    const deep = lastDeep === undefined || now - lastDeep >= opts.rereadIntervalMs;
    // Where each station's incremental read starts: a new record older than that is late.
    const cutoffs = new Map<string, number>();
    for (const [id, mark] of watermarks) cutoffs.set(id.toLowerCase(), mark - opts.overlapMs);
    const future = new Map<string, number>();
    const late = new Map<string, number>();
    const isLate = (r: R) =>
      (r.inserted !== undefined && r.inserted - r.time > opts.overlapMs) ||
      r.time < (cutoffs.get(r.stationId.toLowerCase()) ?? Number.NEGATIVE_INFINITY);
    const take = (slice: readonly R[]) => {
      const onTime: R[] = [];
      const lateByStation = new Map<string, R[]>();
      for (const r of slice) {
        if (accept && !accept(r)) continue;
        const station = r.stationId.toLowerCase();
        if (r.time > now + opts.maxFutureSkewMs) bump(future, station);
        else if (!isLate(r)) onTime.push(r);
        else {
          const group = lateByStation.get(station);
          if (group) group.push(r);
          else lateByStation.set(station, [r]);
        }
      }
      store.add(onTime);
      // Only records new to the store are late: a late record seen again is not counted again.
      for (const [station, records] of lateByStation) {
        const added = Number(store.add(records)) || 0;
        if (added > 0) bump(late, station, added);
      }
    };
    const fetched = await fetchIncremental({
      source: opts.source,
      stationIds,
      watermarks: deep ? new Map() : watermarks,
      now,
      retainFrom,
      overlapMs: opts.overlapMs,
      maxUrlLength: opts.maxUrlLength,
      maxRecords: opts.maxRecords,
      onRecords: (records) => turns.forEachSlice(records, STORE_SLICE, take),
      signal,
      refused: opts.refused,
    });
    // A failed deep read keeps the stations' old marks, so their next read covers the gap.
    watermarks = deep ? new Map([...watermarks, ...fetched.watermarks]) : fetched.watermarks;
    if (deep) lastDeep = now;
    store.evictBefore(retainFrom);
    reportFetch(opts.logger, opts.collector, fetched, store.size());
    reportSync(opts, { future, late, deep });
    return { ...fetched, deep, future, late };
  };
}

const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** One log line per poll for each kind of suspicious record, not one per record. */
function reportSync<R extends SyncedRecord>(
  opts: RecordSyncOptions<R>,
  s: Pick<SyncResult, 'future' | 'late' | 'deep'>,
): void {
  const collector = opts.collector;
  if (s.future.size > 0) {
    opts.logger.warn(
      {
        collector,
        records: total(s.future),
        stations: s.future.size,
        max_future_skew_ms: opts.maxFutureSkewMs,
      },
      "records dated in the future were skipped: check the stations' clocks and their tz, or upstream.naive_time_zone",
    );
  }
  if (s.late.size > 0) {
    opts.logger.warn(
      { collector, records: total(s.late), stations: s.late.size, overlap_ms: opts.overlapMs, deep: s.deep },
      'records arrived later than the overlap; they were picked up now, consider a longer overlap',
    );
  }
}
