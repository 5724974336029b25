/**
 * The collector contract. Collectors never write self-metrics: a job returns what it did
 * ({@link PollOutcome}) and the scheduler times and reports it, as node_exporter's `execute()` does.
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
  readonly site: string;
  readonly line: string;
  readonly station: string;
  readonly stationId: string;
  readonly metric: string;
  readonly slot: string | null;
  /** Lag-1 autocorrelation significantly above 0.1. */
  readonly autocorrelation?: { readonly phi: number; readonly compensated: boolean };
  /** Resolution coarser than half a sigma. */
  readonly quantized?: { readonly resolution: number; readonly sigma: number };
}

/** One summary window's progress: complete when every entity of every planned level has an answer. */
export interface SummaryWindowProgress {
  readonly window: string;
  readonly complete: boolean;
  readonly levelsComplete: readonly string[];
}

/**
 * What one collector offers another, or the status page: each link has one writer and is required,
 * so that no job runs without its readers hearing from it.
 */
export interface CollectorLinks {
  /** Written by the units job, read by the summary job to skip idle stations. */
  readonly activity: ActivityBoard;
  /** Written by the units job when a name is charted per product; the measurements job keys charts by it. */
  readonly products: SerialProducts;
  /** Each station's latest unit time (epoch ms), for the status page; offered once by the units job. */
  readonly offerLastUnitTime: (read: (stationId: string) => number | undefined) => void;
  /** The flagged control charts, for the status page; offered once by the measurements job. */
  readonly offerFlaggedCharts: (read: () => readonly FlaggedChart[]) => void;
  /** Each summary window's progress, for `/-/ready` and the status page; offered once by the summary job. */
  readonly offerSummaryWindows: (read: () => readonly SummaryWindowProgress[]) => void;
}

/** What the exporter offers its collectors, all of it required; each job names the parts it uses ({@link Needs}). */
export interface CollectorContext extends CollectorLinks {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly logger: Logger;
  readonly yielder: LoopYielder;
  /** Masks known secrets in upstream label values: the logs' masking never sees /metrics. */
  readonly redact: (text: string) => string;
  /** Stations refused (403): the record collectors set them, the summary marks aggregates partial. */
  readonly refused: RefusedStations;
  readonly shard: Shard;
}

/** Time between two probes of a refused station, for a job run alone. */
const STANDALONE_REPROBE_MS = 10 * 60_000;

/** The shared dependencies of a job run alone (`record`, `check-config`, benches, tests). */
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
/** Upstream values a poll dropped, added to `station_exporter_records_skipped_total`. */
interface RecordsSkipped {
  readonly endpoint: string;
  readonly reason: string;
  readonly count: number;
}

/** Diagnostics a poll reports; the scheduler turns them into self-metrics. */
interface PollDiagnostics {
  readonly levelsSkipped?: readonly LevelsSkipped[];
  /** Configured stations the token cannot see. */
  readonly stationsInaccessible?: number;
  /** Dropped after parsing (e.g. a summary in the wrong scale). */
  readonly recordsSkipped?: readonly RecordsSkipped[];
  /** Summary requests narrowed to their accessible stations. */
  readonly summaryPartial?: number;
  readonly refresh?: readonly RefreshAchieved[];
  readonly idle?: IdleSkipCounts;
  readonly labelValues?: readonly LabelValueCount[];
  /** The approved-limits file was reread: false when it was bad and the last good one stays. */
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
  readonly skipped: number;
  /** Skippable requests sent anyway to verify the assumption. */
  readonly verified: number;
  readonly disagreements: number;
}

/**
 * One poll's outcome, counted per request so that `requests - failures` is the number of answers;
 * the scheduler evaluates freshness from these counts alone.
 */
export interface PollOutcome {
  readonly families: Family[];
  /** Due in this poll, sent or not (retries excluded; a split request counts once per part). */
  readonly requests: number;
  /** Of `requests`, those that brought no answer (failed for good or not sent). */
  readonly failures: number;
  /** Parts due in this poll confirmed current without a request (the summary's idle skip). */
  readonly confirmed?: number;
  /** Parts served from an earlier poll because the request plan did not make them due. */
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
  intervalMs(config: Config): number;
  /** How long its data may be served without an upstream answer; absent: no bound. */
  maxStalenessMs?(config: Config): number;
  /** What it costs (series, requests, what the series budget may drop), declared in its folder. */
  readonly costs: CollectorCosts;
}

/** The parts of the {@link CollectorContext} a job is constructed with. */
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
