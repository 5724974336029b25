/** What a records collector (measurements, units) costs per poll. */
import type { Config } from '../config/schema.ts';
import type { CollectorCosts } from '../model/plan.ts';
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
 * The `requests` cost of a records collector, per poll once caught up: a request per batch of
 * stations plus its share of the re-read sweep, rounded up (control charts retain more than the
 * longest window: their sweep costs more). `emptyListUrl`: its longest URL with no station.
 */
export function recordsRequests(
  name: 'measurements' | 'units',
  emptyListUrl: (config: Config, now: Date) => string,
): NonNullable<CollectorCosts['requests']> {
  return (config, plant, now) => {
    const { intervalMs, rereadIntervalMs } = config[name];
    const fixedUrlLength = emptyListUrl(config, now).length + '&station_ids='.length;
    const perRequest = stationsPerRequest(config.upstream.maxUrlLength, fixedUrlLength);
    const batches = recordRequestsPerPoll(plant.counts.stations, Math.max(1, perRequest));
    const retainedMs = longestWindowMs(config.windows, now);
    const sweep = batches * sweepSpans(retainedMs, rereadIntervalMs, DEFAULT_MAX_SPAN_MS);
    const requestsPerPoll = batches + Math.ceil((sweep * intervalMs) / rereadIntervalMs);
    return { records: { collector: name, requestsPerPoll, intervalMs } };
  };
}
