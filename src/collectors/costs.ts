/**
 * What planning and the collectors share, placed with the collectors so that no collector needs
 * the planning room: the plan a collector is given (which windows and levels to refresh, and how
 * often), and what a records collector costs per poll.
 */
import type { Level } from '../model/topology.ts';

/** A records collector's polls: stations batched into `station_ids` lists within the URL limit. */
export interface RecordsNeed {
  readonly collector: string;
  /** Requests one poll makes once caught up: one span per batch of stations, and its share of the re-read sweep. */
  readonly requestsPerPoll: number;
  /** The collector's configured interval, ms. */
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

/** An entry left out because the budget cannot carry it even at its longest refresh. */
export interface DroppedEntry {
  readonly collector: string;
  readonly window?: string;
  readonly level?: Level;
  readonly requests: number;
  /** What it would cost per minute at its longest refresh. */
  readonly requestsPerMinute: number;
}

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
