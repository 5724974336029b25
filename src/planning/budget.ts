/** The request plan from the config, this replica's shard and each enabled collector's declared costs. */
import type { Collector } from '../collectors/collector.ts';
import { COLLECTORS } from '../collectors/index.ts';
import type { Config } from '../config/schema.ts';
import type { PlantView, RecordsNeed, RequestNeed, WindowedNeed } from '../model/plan.ts';
import type { Topology } from '../model/topology.ts';
import type { Shard } from '../sharding/shard.ts';
import { planRequests, planWindows, type RequestPlan } from './request-plan.ts';

/** This replica's request budget: `sharding.max_requests_per_second`, else the upstream's over the shards. */
export function shardRequestRate(config: Config, shard: Shard): number {
  return config.sharding.maxRequestsPerSecond ?? config.upstream.maxRequestsPerSecond / shard.total;
}

/** The plant as a (sharded) topology: its counts, and the topology for the collectors that need it. */
export function plantOf(topology: Topology): PlantView {
  return {
    counts: {
      stations: topology.stations.length,
      groups: topology.groups.length,
      lines: topology.lines.length,
      sites: topology.sites.length,
    },
    topology,
  };
}

/** Where and when a plan is made: this replica's plant and shard, the time, the collector list. */
export interface PlanScope {
  readonly plant: PlantView;
  readonly shard: Shard;
  readonly now: Date;
  /** Default: the shipped list. */
  readonly collectors?: readonly Collector[];
}

/** The plan for this replica at `now`. Calendar windows are planned at their current length. */
export function planFor(config: Config, scope: PlanScope): RequestPlan {
  const { plant, shard, now, collectors = COLLECTORS } = scope;
  const needs = collectors.flatMap((c): RequestNeed | [] =>
    c.enabled(config) ? (c.costs.requests?.(config, plant, now) ?? []) : [],
  );
  const windowed = needs.flatMap((n): WindowedNeed[] => ('windowed' in n ? [n.windowed] : []));
  const records = needs.flatMap((n): RecordsNeed[] => ('records' in n ? [n.records] : []));
  // The planner stretches the windows of one collector whose requests go per window and level.
  if (windowed.length > 1)
    throw new Error(`more than one windowed collector: ${windowed.map((w) => w.collector).join(', ')}`);
  const w = windowed[0];
  return planRequests({
    windowedCollector: w?.collector ?? '',
    summaryRequests: w?.requestsPerLevel ?? {},
    levels: w?.levels ?? [],
    windows: w ? planWindows(config.windows, now, config.planning.refreshMs) : [],
    records,
    maxRequestsPerSecond: shardRequestRate(config, shard),
    retryReserve: config.planning.retryReserve,
    // Without a windowed collector no window is planned, and this bound is unused.
    baseIntervalMs: w?.baseIntervalMs ?? 60_000,
    maxRefreshMs: config.planning.maxRefreshMs,
  });
}
