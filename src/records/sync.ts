/**
 * Keeps an in-memory record store in step with the upstream, for the collectors that read
 * record lists (`measurements`, `units`): one incremental fetch per poll, then the records
 * that left the longest window are dropped.
 */

import type { JobDeps, PollContext } from '../collectors/collector.ts';
import { longestWindowMs } from '../time/windows.ts';
import { forEachSlice } from '../util/turns.ts';
import { fetchIncremental, type RecordSource, reportFetch, type Timed } from './fetch.ts';

/** What the sync needs of a store. */
export interface RecordStore<R> {
  add(records: readonly R[]): unknown;
  evictBefore(t: number): void;
  retainStations(ids: ReadonlySet<string>): void;
  size(): number;
}

export interface RecordSyncOptions<R extends Timed> {
  readonly collector: string;
  readonly source: RecordSource<R>;
  readonly store: RecordStore<R>;
  readonly overlapMs: number;
  readonly maxRecords: number;
  /** Records to keep; default all. */
  readonly accept?: (record: R) => boolean;
}

/** Records added to the store between two turns of the event loop. */
const STORE_SLICE = 5000;

/** Creates the sync; each call fetches what is new and returns whether every request succeeded. */
export function createRecordSync<R extends Timed>(
  deps: JobDeps,
  opts: RecordSyncOptions<R>,
): (ctx: PollContext) => Promise<boolean> {
  const { config, self, logger } = deps;
  const { store, accept } = opts;
  let watermarks = new Map<string, number>();
  return async ({ topology, now, signal }) => {
    const nowMs = now.getTime();
    const retainFrom = nowMs - longestWindowMs(config.windows, now);
    const ids = topology.stations.map((s) => s.id);
    store.retainStations(new Set(ids));
    const fetched = await fetchIncremental({
      source: opts.source,
      stationIds: ids,
      watermarks,
      now: nowMs,
      retainFrom,
      overlapMs: opts.overlapMs,
      maxUrlLength: config.upstream.maxUrlLength,
      maxRecords: opts.maxRecords,
      onRecords: (records) =>
        forEachSlice(records, STORE_SLICE, (slice) => store.add(accept ? slice.filter(accept) : slice)),
      signal,
    });
    watermarks = fetched.watermarks;
    store.evictBefore(retainFrom);
    self.setUpstreamUp(fetched.failures < fetched.requests || fetched.requests === 0);
    reportFetch(logger, opts.collector, fetched, store.size());
    return fetched.failures === 0;
  };
}
