/**
 * Keeps an in-memory record store in step with the upstream, for the collectors that read
 * record lists (`measurements`, `units`): one incremental fetch per poll, then the records
 * that left the longest window are dropped.
 */
import type { Logger } from 'pino';
import type { Turns } from '../util/turns.ts';
import { fetchIncremental, type IncrementalFetchResult, reportFetch } from './fetch.ts';
import type { RefusedStations } from './refused.ts';
import type { RecordSource, RecordStore, Timed } from './types.ts';

export interface RecordSyncOptions<R extends Timed> {
  /** The collector's name, for log lines. */
  readonly collector: string;
  readonly source: RecordSource<R>;
  readonly store: RecordStore<R>;
  readonly overlapMs: number;
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

/** Records added to the store between two turns of the event loop. */
const STORE_SLICE = 5000;

/** Creates the sync; each call fetches what is new and says what it asked of the upstream. */
export function createRecordSync<R extends Timed>(
  opts: RecordSyncOptions<R>,
): (req: SyncRequest) => Promise<IncrementalFetchResult> {
  const { store, accept, turns } = opts;
  let watermarks = new Map<string, number>();
  return async ({ stationIds, now, retainFrom, signal }) => {
    store.retainStations(new Set(stationIds));
    const fetched = await fetchIncremental({
      source: opts.source,
      stationIds,
      watermarks,
      now,
      retainFrom,
      overlapMs: opts.overlapMs,
      maxUrlLength: opts.maxUrlLength,
      maxRecords: opts.maxRecords,
      onRecords: (records) =>
        turns.forEachSlice(records, STORE_SLICE, (slice) => store.add(accept ? slice.filter(accept) : slice)),
      signal,
      refused: opts.refused,
    });
    watermarks = fetched.watermarks;
    store.evictBefore(retainFrom);
    reportFetch(opts.logger, opts.collector, fetched, store.size());
    return fetched;
  };
}
