/** What a records collector (measurements, units) costs per poll. */
import type { Config } from '../config/schema.ts';
import type { RecordsNeed } from '../model/plan.ts';
import { DEFAULT_MAX_SPAN_MS } from '../records/fetch.ts';
import { sweepSpans } from '../records/sweep.ts';
import { longestWindowMs } from '../time/windows.ts';

/** Length of one station id in a `station_ids` list: 24 hex characters. */
const ID_LENGTH = 24;

/** Stations that fit in one `station_ids` list: 24 characters for the first id, 25 for each further. */
export function stationsPerRequest(maxUrlLength: number, fixedUrlLength: number): number {
  return Math.max(0, Math.floor((maxUrlLength - fixedUrlLength + 1) / (ID_LENGTH + 1)));
}

/** Requests one caught-up records poll makes for `stations` stations: one per batch. */
export function recordRequestsPerPoll(stations: number, perRequest: number): number {
  if (stations === 0) return 0;
  if (perRequest <= 0) throw new RangeError('not even one station fits in a request URL');
  return Math.ceil(stations / perRequest);
}

/**
 * Cost per poll once caught up: a request per batch of stations plus its share of the re-read
 * sweep, rounded up (control charts retain more than the longest window: their sweep costs more).
 */
export function recordsNeed(
  config: Config,
  collector: { readonly name: string; readonly intervalMs: number; readonly rereadIntervalMs: number },
  opts: { readonly stations: number; readonly emptyListUrl: string; readonly now: Date },
): RecordsNeed {
  const fixedUrlLength = opts.emptyListUrl.length + '&station_ids='.length;
  const perRequest = stationsPerRequest(config.upstream.maxUrlLength, fixedUrlLength);
  const batches = recordRequestsPerPoll(opts.stations, Math.max(1, perRequest));
  const retainedMs = longestWindowMs(config.windows, opts.now);
  const sweep = batches * sweepSpans(retainedMs, collector.rereadIntervalMs, DEFAULT_MAX_SPAN_MS);
  return {
    collector: collector.name,
    requestsPerPoll: batches + Math.ceil((sweep * collector.intervalMs) / collector.rereadIntervalMs),
    intervalMs: collector.intervalMs,
  };
}
