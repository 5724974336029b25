/**
 * Messages between the benchmark and its child processes (simulator, load generator).
 * Children run in their own processes so that their CPU time and memory stay out of the
 * exporter's event-loop and RSS figures.
 */
import type { PlantScale } from '../../src/simulator/types.ts';
import type { ControlBenchResult } from '../spc/control.ts';

/** What the simulator child is started with (JSON in argv[2]). */
export interface SimChildOptions {
  readonly seed: number;
  readonly scale: PlantScale;
  readonly token: string;
  /** Initial value of the shared simulated clock, epoch ms. */
  readonly nowMs: number;
}

/** Parent to simulator child. */
export type SimRequest = { readonly type: 'set-now'; readonly nowMs: number } | { readonly type: 'stats' };

/** Simulator child to parent. */
export type SimReply =
  | {
      readonly type: 'ready';
      readonly url: string;
      readonly stations: number;
      readonly measurementNames: readonly string[];
    }
  | { readonly type: 'now-set'; readonly nowMs: number }
  | {
      readonly type: 'stats';
      readonly rssBytes: number;
      /** Requests received since the previous `stats`. */
      readonly requests: number;
      /** CPU time (user + system) used since the child started. */
      readonly cpuMs: number;
    };

/** One load run, given to the load generator child as JSON in argv[2]. */
export interface LoadSpec {
  /**
   * Servers compared: the load alternates between them in rounds (A B, then B A, ...), so a
   * slow patch of the shared machine falls on both instead of on whichever ran then.
   */
  readonly urls: readonly string[];
  /** Rounds; each server gets `durationMs / rounds` per round. */
  readonly rounds: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Keep-alive connections, each with one request in flight. */
  readonly connections: number;
  /** Measured time per server, over all rounds; a server also stops at `maxRequests`. */
  readonly durationMs: number;
  readonly maxRequests: number;
  /** Unmeasured requests per connection before the clock starts (connection setup, JIT). */
  readonly warmupRequests: number;
  /**
   * Unmeasured time per server before the clock starts, on top of `warmupRequests` (default 0):
   * a server's code runs optimised only after some thousand calls, which a few requests of a
   * large body do not make.
   */
  readonly warmupMs?: number;
}

/** What one load run measured. */
export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  /** Response body bytes received, as sent on the wire (compressed for gzip). */
  readonly bytes: number;
  readonly elapsedMs: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Requests per second in each round, in order. */
  readonly roundRates: readonly number[];
}

/** One memory reading of the sized exporter run. */
export interface MemoryReading {
  /** When it was taken, e.g. "after steady poll 2". */
  readonly at: string;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly arrayBuffersBytes: number;
  /** CPU time of the child since it started (user + system), ms, when it reports it. */
  readonly cpuMs?: number;
}

/** What the sized exporter run (bench/exporter/exporter-child.mjs) reports. */
export interface SizedRunResult {
  readonly type: 'sized-run';
  readonly stations: number;
  readonly series: number;
  readonly steadyPolls: number;
  /** Milliseconds idled after each poll before the second reading of that poll. */
  readonly idleMs: number;
  readonly readings: readonly MemoryReading[];
  /** CPU time of the child over its polls and idles (user + system), for comparing settings. */
  readonly cpuMs?: number;
  /** V8's garbage collections over the same: their total and longest pause. */
  readonly gc?: { readonly count: number; readonly totalMs: number; readonly longestMs: number };
  /** Worst event-loop block of each poll (first, then the steady ones), ms. */
  readonly blockMs?: readonly number[];
}

/** The highest RSS so far of a child, and in which phase it was read. */
export interface RssMark {
  readonly rssBytes: number;
  readonly at: string;
  /** Where the memory sat then (bench/exporter/memory-detail.mjs), when the reader ran. */
  readonly detail?: unknown;
}

/** What bench/exporter/combined-child.ts is started with (JSON in argv[2]). */
export interface CombinedRunArgs {
  /** The exporter's config object, with `discovery.station_ids`. */
  readonly config: Record<string, unknown> & {
    readonly discovery: { readonly station_ids: readonly string[] };
  };
  readonly nowMs: number;
  readonly steadyPolls: number;
  readonly idleMs: number;
  /** The control charts: runControlBench(stations, baselineHours) of bench/spc/control.ts. */
  readonly control: { readonly stations: number; readonly baselineHours: number };
}

/** What the combined run reports; absent fields of the charts when the child died first. */
export interface CombinedRunResult {
  readonly type: 'combined-run';
  readonly stations: number;
  readonly series: number;
  readonly highest: RssMark;
  readonly control: ControlBenchResult;
}
