/**
 * The planner's inputs taken from a topology and from URL-length batching.
 */
import { entitiesOf } from '../collectors/summary/plan.ts';
import type { Level, Topology } from '../model/topology.ts';

/** Length of one station id in a `station_ids` list: 24 hex characters. */
const ID_LENGTH = 24;

/**
 * Distinct summary requests one window costs at each level: entities of a level with the same
 * station list (e.g. groups that are the whole line) share one request, keyed like the summary poll.
 */
export function summaryRequestsPerLevel(
  topology: Pick<Topology, 'stations' | 'groups' | 'lines' | 'sites'>,
  levels: readonly Level[],
): Partial<Record<Level, number>> {
  const out: Partial<Record<Level, number>> = {};
  for (const level of levels) {
    out[level] = new Set(entitiesOf(topology, level).map((e) => e.stationIds.join(','))).size;
  }
  return out;
}

/**
 * Stations that fit in one request's `station_ids` list: a URL of `fixedUrlLength` characters with an
 * empty list grows by 24 characters for the first id and 25 (a comma and an id) for each further one.
 */
export function stationsPerRequest(maxUrlLength: number, fixedUrlLength: number): number {
  return Math.max(0, Math.floor((maxUrlLength - fixedUrlLength + 1) / (ID_LENGTH + 1)));
}

/** Requests one caught-up records poll makes for `stations` stations: one per batch. */
export function recordRequestsPerPoll(stations: number, perRequest: number): number {
  if (stations === 0) return 0;
  if (perRequest <= 0) throw new RangeError('not even one station fits in a request URL');
  return Math.ceil(stations / perRequest);
}
