/** What the record fetching, syncing and storing share: records, sources and stores. */
import type { WindowQuery } from '../upstream/endpoints.ts';
import type { RecordList } from '../upstream/types.ts';

/** Records carry their time (epoch ms). */
export interface Timed {
  readonly time: number;
}

/** How to fetch one endpoint's records. */
export interface RecordSource<R extends Timed> {
  /** Length of the URL the client would send for `q` (the client's own encoding). */
  urlLength(q: WindowQuery): number;
  fetch(q: WindowQuery): Promise<RecordList<R>>;
}

/** What the sync needs of a store. */
export interface RecordStore<R> {
  add(records: readonly R[]): unknown;
  evictBefore(t: number): void;
  retainStations(ids: ReadonlySet<string>): void;
  size(): number;
}
