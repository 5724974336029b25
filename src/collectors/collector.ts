/**
 * The collector contract. A collector is a folder under `src/collectors/` with its metric
 * families, a job that polls the upstream and turns what it fetched into families, and
 * (for record collectors) a store. It is listed once, in `src/collectors/index.ts`.
 *
 * Collectors never write self-metrics: a job returns what it did ({@link PollOutcome}) and
 * the scheduler times every poll and reports success, duration, data age, upstream health
 * and the collector's own diagnostics, as node_exporter's `execute()` does.
 */

import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { Family, FamilyDesc } from '../exposition/model.ts';
import type { LevelsSkipped } from '../exposition/selfmetrics.ts';
import type { LabelValueCount } from '../model/label-values.ts';
import type { CollectorCosts, RequestPlan } from '../model/plan.ts';
import type { Topology } from '../model/topology.ts';
import { SerialProducts } from '../records/products.ts';
import { RefusedStations } from '../records/refused.ts';
import { type Shard, UNSHARDED } from '../sharding/shard.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { LoopYielder } from '../util/loop-yield.ts';
import { ActivityBoard } from './activity.ts';

/** A control chart whose baseline is flagged (docs/measurements.md, "Guards for real data"). */
export interface FlaggedChart {
  /** The station's site and line, by exported name. */
  readonly site: string;
  readonly line: string;
  readonly station: string;
  readonly stationId: string;
  readonly metric: string;
  readonly slot: string | null;
  /** Lag-1 autocorrelation significantly above 0.1: the value, and whether the chart is compensated for it. */
  readonly autocorrelation?: { readonly phi: number; readonly compensated: boolean };
  /** Resolution coarser than half a sigma: the step and the sigma. */
  readonly quantized?: { readonly resolution: number; readonly sigma: number };
}

/** One summary window's progress: complete when every entity of every planned level has an answer. */
export interface SummaryWindowProgress {
  readonly window: string;
  readonly complete: boolean;
  readonly levelsComplete: readonly string[];
}

/**
 * What one collector offers another, or the status page: each link has one writer and is
 * required, so that a job cannot run without the collectors and pages that depend on it hearing
 * from it. A context outside the exporter (a test, `record`) passes its own board and offers.
 */
export interface CollectorLinks {
  /** Unit activity: the units job writes it, the summary job reads it to skip idle stations. */
  readonly activity: ActivityBoard;
  /**
   * Each unit serial's product: the units job writes it when a control name is charted per
   * product, the measurements job reads it to key those charts.
   */
  readonly products: SerialProducts;
  /**
   * Receives a read-only view of each station's latest unit time (epoch ms), for the status
   * page; the units job offers it once, when it creates its store.
   */
  readonly offerLastUnitTime: (read: (stationId: string) => number | undefined) => void;
  /**
   * Receives a read-only view of the control charts whose baseline breaks an assumption of the
   * documented false-alarm rates, for the status page; the measurements job offers it once.
   */
  readonly offerFlaggedCharts: (read: () => readonly FlaggedChart[]) => void;
  /**
   * Receives a read-only view of each summary window's progress towards a first complete
   * answer (shortest window first), for `/-/ready` and the status page; the summary job offers it once.
   */
  readonly offerSummaryWindows: (read: () => readonly SummaryWindowProgress[]) => void;
}

/** What the exporter offers its collectors, all of it required; each job names the parts it uses ({@link Needs}). */
export interface CollectorContext extends CollectorLinks {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly logger: Logger;
  /** The exporter's one yielder to the event loop, for CPU-heavy loops. */
  readonly yielder: LoopYielder;
  /**
   * The process's redactor, as a function: masks known secrets and `Bearer <credential>`. Label
   * values from the upstream pass through it (model/label-values.ts), since the logs' masking
   * never sees /metrics.
   */
  readonly redact: (text: string) => string;
  /**
   * Stations the upstream refuses (403) to this token, shared by every collector: the record
   * collectors add and clear them, the summary collector reads them (`has`, `size`, `ids`) to
   * mark aggregates over a station set as partial.
   */
  readonly refused: RefusedStations;
  /** This replica's shard ({@link UNSHARDED} when not sharded). */
  readonly shard: Shard;
}

/** Time between two probes of a refused station, for a job run alone. */
const STANDALONE_REPROBE_MS = 10 * 60_000;

/**
 * The shared dependencies of a job run alone, outside a wired exporter (`record`, the series
 * count of `check-config`, benches, tests): the whole plant as its shard, refused stations and
 * unit activity of its own, and offers that nobody reads.
 */
export function standaloneDependencies(): CollectorLinks & Pick<CollectorContext, 'refused' | 'shard'> {
  return {
    refused: new RefusedStations(STANDALONE_REPROBE_MS),
    shard: UNSHARDED,
    activity: new ActivityBoard(),
    products: new SerialProducts(),
    offerLastUnitTime: () => {},
    offerFlaggedCharts: () => {},
    offerSummaryWindows: () => {},
  };
}
/** One row of `station_exporter_levels_skipped` (the type belongs to the self-metrics). */

/** Upstream values a poll dropped, added to `station_exporter_records_skipped_total`. */
interface RecordsSkipped {
  readonly endpoint: string;
  readonly reason: string;
  readonly count: number;
}

/** Diagnostics a poll reports; the scheduler turns them into self-metrics. */
interface PollDiagnostics {
  /** Summary level entities skipped, by level and reason. */
  readonly levelsSkipped?: readonly LevelsSkipped[];
  /** Configured stations the token cannot see. */
  readonly stationsInaccessible?: number;
  /** Records or fields dropped by the collector after parsing (e.g. a summary in the wrong scale). */
  readonly recordsSkipped?: readonly RecordsSkipped[];
  /** Summary requests narrowed to their accessible stations because some were refused (403). */
  readonly summaryPartial?: number;
  /** Achieved refresh per (window, level): the longest time between two answers of one entity, seconds. */
  readonly refresh?: readonly RefreshAchieved[];
  /** Summary requests skipped because their stations were idle, and the sample re-asked to verify. */
  readonly idle?: IdleSkipCounts;
  /** Upstream label values masked or cut, and elements left out for their id, by reason. */
  readonly labelValues?: readonly LabelValueCount[];
  /** The approved-limits file was read again: true when it was good, false when the last good one stays. */
  readonly limitsFileLoaded?: boolean;
}

/** One row of `station_exporter_refresh_achieved_seconds`. */
export interface RefreshAchieved {
  readonly window: string;
  readonly level: string;
  readonly seconds: number;
}

/** One poll's idle skipping. */
export interface IdleSkipCounts {
  /** Requests not sent (the sample re-asked excluded). */
  readonly skipped: number;
  /** Skippable requests sent anyway to verify the assumption. */
  readonly verified: number;
  /** Verified requests whose answer differed from the kept one. */
  readonly disagreements: number;
}

/**
 * One poll's outcome: the families to publish whole, and what the poll asked of the upstream,
 * counted per request, so that `failures` never exceeds `requests` and `requests - failures`
 * is the number of answers. The scheduler evaluates freshness from these counts alone.
 */
export interface PollOutcome {
  readonly families: Family[];
  /**
   * Upstream requests due in this poll, sent or not (retries excluded; a request whose answer
   * was replaced by smaller requests counts once per smaller request).
   */
  readonly requests: number;
  /**
   * Of `requests`, those that brought no answer: failed for good (timeouts, 5xx, network, bad
   * bodies) or not sent (circuit open, URL too long); their data kept its last values.
   */
  readonly failures: number;
  /** Parts due in this poll confirmed current without a request (the summary's idle skip). */
  readonly confirmed?: number;
  /**
   * Parts served from an earlier poll because the request plan did not make them due in this
   * one. A poll with deferred parts and nothing due brought no new data.
   */
  readonly deferred?: number;
  readonly diagnostics?: PollDiagnostics;
}

/** The discovery poll's outcome also carries the topology every other collector reads. */
export interface DiscoveryOutcome extends PollOutcome {
  readonly topology: Topology;
}

/** One data poll's inputs: the current topology and the time that ends every window. */
export interface PollContext {
  readonly topology: Topology;
  readonly now: Date;
  readonly signal?: AbortSignal;
  /** The scheduler's current request plan (absent: every window on every poll). */
  readonly plan?: RequestPlan;
}

/** A job that polls the upstream on its collector's interval. */
export interface Job<C, O extends PollOutcome> {
  poll(ctx: C): Promise<O>;
}

interface CollectorBase {
  /** Config section and `collector` label of the self-metrics. */
  readonly name: string;
  /** Every family the collector can export (for the generated metrics reference). */
  readonly families: readonly FamilyDesc[];
  enabled(config: Config): boolean;
  /** How often the job runs. */
  intervalMs(config: Config): number;
  /** How long its data may be served without an answer from the upstream; absent: no bound. */
  maxStalenessMs?(config: Config): number;
  /** What it costs (series, requests, what the series budget may drop), declared in its folder. */
  readonly costs: CollectorCosts;
}

/**
 * The parts of the {@link CollectorContext} a collector's job uses, by name: its job is
 * constructed with those alone, and a caller outside the exporter passes no more.
 */
export type Needs<K extends keyof CollectorContext> = Pick<CollectorContext, K>;

/** The collector that discovers the topology; it runs before the others. */
export interface DiscoveryCollector<D extends Partial<CollectorContext> = CollectorContext>
  extends CollectorBase {
  readonly kind: 'discovery';
  createJob(deps: D): Job<{ readonly now: Date; readonly signal?: AbortSignal }, DiscoveryOutcome>;
}

/** A collector that polls data for the discovered topology. */
export interface DataCollector<D extends Partial<CollectorContext> = CollectorContext> extends CollectorBase {
  readonly kind: 'data';
  createJob(deps: D): Job<PollContext, PollOutcome>;
}

/** Any collector of the list. */
export type Collector = DiscoveryCollector | DataCollector;
