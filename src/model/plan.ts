/**
 * The contract between the planner and the collectors: what a collector declares it costs and the
 * plan it is given. The planner iterates the collector list, so the types both use sit here, below.
 */
import type { Config } from '../config/schema.ts';
import type { Level, Topology } from './topology.ts';

/**
 * A records collector's polls: stations batched into `station_ids` lists within the URL limit;
 * `requestsPerPoll` once caught up (a span per batch, and its share of the re-read sweep).
 */
export interface RecordsNeed {
  readonly collector: string;
  readonly requestsPerPoll: number;
  readonly intervalMs: number;
}

/** Why an entry has its refresh. */
export type RefreshBasis = 'default' | 'stretched' | 'longest' | 'override' | 'interval';

/** One planned (collector, window, level). Records collectors have no window and no level. */
export interface PlanEntry {
  readonly collector: string;
  readonly window?: string;
  readonly level?: Level;
  /** Requests one refresh makes. */
  readonly requests: number;
  readonly refreshMs: number;
  /** `requests × 60 s / refresh`. */
  readonly requestsPerMinute: number;
  readonly basis: RefreshBasis;
}

/** An entry the budget cannot carry even at its longest refresh (its cost per minute there). */
export type DroppedEntry = Pick<
  PlanEntry,
  'collector' | 'window' | 'level' | 'requests' | 'requestsPerMinute'
>;

/** The planner's answer. */
export interface RequestPlan {
  /** Entries kept, summary windows in config order with their levels station to site, then records. */
  readonly entries: readonly PlanEntry[];
  /** Entries dropped, in the order they were dropped. */
  readonly dropped: readonly DroppedEntry[];
  /** Planned requests per minute, all entries. */
  readonly requestsPerMinute: number;
  /** `max_requests_per_second × 60`. */
  readonly budgetPerMinute: number;
  /** The budget less the retry reserve: what the plan fills at most. */
  readonly plannedCeilingPerMinute: number;
  readonly retryReserve: number;
  /** The common fraction of their length by which windows were stretched; 0 when defaults fit. */
  readonly stretch: number;
}

/**
 * The plant as counted for one replica (from `check-config` counts or a discovered topology), with
 * measurement names per station (default every configured name), slots per name (default 1) and
 * unit record kinds per station (default 3: input, output pass, output fail).
 */
export interface PlantCounts {
  readonly stations: number;
  readonly groups: number;
  readonly lines: number;
  readonly sites: number;
  readonly names?: number;
  readonly slots?: number;
  readonly unitKinds?: number;
}

/** What planning knows of the plant: its counts, and the topology itself when one was discovered. */
export interface PlantView {
  readonly counts: PlantCounts;
  readonly topology?: Pick<Topology, 'stations' | 'groups' | 'lines' | 'sites'>;
}

/** One family's share of a series estimate. */
export interface SeriesRow {
  readonly collector: string;
  readonly family: string;
  readonly series: number;
}

/**
 * A collector whose requests go per window and level (the summary): one request per distinct
 * station set of a level, per window, per refresh. The planner picks each window's refresh.
 */
export interface WindowedNeed {
  readonly collector: string;
  /** Distinct requests one window costs at each level. */
  readonly requestsPerLevel: Partial<Record<Level, number>>;
  readonly levels: readonly Level[];
  /** The collector's interval: the fastest any window is refreshed. */
  readonly baseIntervalMs: number;
}

/** What a collector asks of the upstream's request budget. */
export type RequestNeed = { readonly records: RecordsNeed } | { readonly windowed: WindowedNeed };

/** A family the series budget may drop, and when: lower priorities go first. */
export interface DropRank {
  readonly family: string;
  readonly priority: number;
}

/**
 * What a collector costs, declared in its own folder: the planner, the series estimate and the
 * series budget read these from the collector list and never name a collector.
 */
export interface CollectorCosts {
  /** Its series for a plant of these counts (an upper bound where the plant decides). */
  series(config: Config, counts: PlantCounts): readonly SeriesRow[];
  /** Its requests, when it polls the upstream within the request budget. */
  requests?(config: Config, plant: PlantView, now: Date): RequestNeed | undefined;
  /** Its families that `planning.max_series` may drop, with their priorities. */
  readonly drops?: readonly DropRank[];
}
