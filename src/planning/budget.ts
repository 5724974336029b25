/**
 * The request plan of a running (or checked) exporter: the planner's inputs taken from the config,
 * this replica's shard and the topology it polls (or counts given on the command line).
 */

import type { Config } from '../config/schema.ts';
import type { Topology } from '../model/topology.ts';
import { DEFAULT_MAX_SPAN_MS } from '../records/fetch.ts';
import { sweepSpans } from '../records/sweep.ts';
import type { Shard } from '../sharding/shard.ts';
import { longestWindowMs } from '../time/windows.ts';
import { requestUrl } from '../upstream/endpoints.ts';
import { recordRequestsPerPoll, stationsPerRequest, summaryRequestsPerLevel } from './counts.ts';
import { planWindows } from './refresh.ts';
import { planRequests, type RecordsNeed, type RequestPlan } from './request-plan.ts';

/** This replica's request budget: `sharding.max_requests_per_second`, else the upstream's over the shards. */
export function shardRequestRate(config: Config, shard: Shard): number {
  return config.sharding.maxRequestsPerSecond ?? config.upstream.maxRequestsPerSecond / shard.total;
}

/** The longest URL of a records request with an empty station list, plus `&station_ids=`. */
function fixedRecordsUrl(config: Config, collector: 'measurements' | 'units', now: Date): number {
  const window = { from: now, to: now, stationIds: [] as string[] };
  const url =
    collector === 'units'
      ? requestUrl(config.upstream.baseUrl, 'units', { ...window, directions: ['input', 'output'] })
      : requestUrl(config.upstream.baseUrl, 'metrics', {
          ...window,
          names: config.measurements.names.map((n) => n.name),
        });
  return url.length + '&station_ids='.length;
}

/**
 * What each enabled records collector costs per poll once caught up, for `stations` stations: one
 * request per batch of stations, plus its share of the re-read sweep (every batch reads the
 * longest window again in spans once per `reread_interval`), rounded up. With control charts, the
 * measurements collector retains more than the longest window; the sweep then costs more than this.
 */
export function recordNeeds(config: Config, stations: number, now: Date): RecordsNeed[] {
  const out: RecordsNeed[] = [];
  const retainedMs = longestWindowMs(config.windows, now);
  for (const collector of ['measurements', 'units'] as const) {
    const settings = config[collector];
    if (!settings.enabled) continue;
    const perRequest = stationsPerRequest(
      config.upstream.maxUrlLength,
      fixedRecordsUrl(config, collector, now),
    );
    const batches = recordRequestsPerPoll(stations, Math.max(1, perRequest));
    const sweep = batches * sweepSpans(retainedMs, settings.rereadIntervalMs, DEFAULT_MAX_SPAN_MS);
    out.push({
      collector,
      requestsPerPoll: batches + Math.ceil((sweep * settings.intervalMs) / settings.rereadIntervalMs),
      intervalMs: settings.intervalMs,
    });
  }
  return out;
}

/** Counts of one replica's share of the plant: distinct summary requests per level, and stations. */
export interface PlanCounts {
  readonly summaryRequests: Partial<Record<'station' | 'group' | 'line' | 'site', number>>;
  readonly stations: number;
}

/** Counts of a (sharded) topology. */
export function countsOf(topology: Topology, config: Config): PlanCounts {
  return {
    summaryRequests: summaryRequestsPerLevel(topology, config.summary.levels),
    stations: topology.stations.length,
  };
}

/** The plan for this replica at `now`. Calendar windows are planned at their current length. */
export function planFor(config: Config, counts: PlanCounts, shard: Shard, now: Date): RequestPlan {
  const summary = config.summary.enabled;
  return planRequests({
    summaryRequests: summary ? counts.summaryRequests : {},
    levels: summary ? config.summary.levels : [],
    windows: summary ? planWindows(config.windows, now, config.planning.refreshMs) : [],
    records: recordNeeds(config, counts.stations, now),
    maxRequestsPerSecond: shardRequestRate(config, shard),
    retryReserve: config.planning.retryReserve,
    baseIntervalMs: config.summary.intervalMs,
    maxRefreshMs: config.planning.maxRefreshMs,
  });
}
