import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { Family } from '../exposition/model.ts';
import type { SelfMetrics } from '../exposition/selfmetrics.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { Topology } from './topology/types.ts';

/** What every collector job may use. */
export interface JobDeps {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly self: SelfMetrics;
  readonly logger: Logger;
}

/** One poll's inputs: the current topology and the time that ends every window. */
export interface PollContext {
  readonly topology: Topology;
  readonly now: Date;
  readonly signal?: AbortSignal;
}

/** One poll's outcome: the families to publish whole, and whether every request succeeded. */
export interface PollOutcome {
  readonly families: Family[];
  readonly complete: boolean;
}

/**
 * A background collector job: fetches from the upstream, then turns what it fetched into
 * families with its collector's pure function. Its name is its config key and the
 * `collector` label of the self-metrics.
 */
export interface CollectorJob {
  readonly name: string;
  readonly intervalMs: number;
  poll(ctx: PollContext): Promise<PollOutcome>;
}
