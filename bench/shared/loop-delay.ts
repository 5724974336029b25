/** Worst event-loop block while something runs, from `perf_hooks.monitorEventLoopDelay`. */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** Sampling interval of the monitor. */
export const LOOP_RESOLUTION_MS = 10;

/** A running monitor; `maxBlockMs` may be read at any time. */
export interface LoopMonitor {
  /**
   * The longest delay seen so far minus the sampling interval: the monitor's timer fires
   * every {@link LOOP_RESOLUTION_MS} even on an idle loop, so an idle loop reads about 0.
   */
  maxBlockMs(): number;
  stop(): void;
}

/** Starts a monitor of its own, so phases measured at the same time do not disturb each other. */
export function startLoopMonitor(): LoopMonitor {
  const h = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  h.enable();
  return {
    maxBlockMs: () => (h.count === 0 ? 0 : Math.max(0, h.max / 1e6 - LOOP_RESOLUTION_MS)),
    stop: () => h.disable(),
  };
}

/** The longest garbage-collection pause of this process while something ran. */
export interface GcPause {
  readonly ms: number;
  /** `scavenge`, `mark-compact`, `incremental` or `weak callbacks`. */
  readonly kind: string;
}

const GC_KINDS: Readonly<Record<number, string>> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * Runs `fn` under a fresh monitor and returns its result with the worst block seen meanwhile,
 * and the longest pause of the garbage collector on the main thread: beside the worst block it
 * tells a block the collector made from one the code made.
 */
export async function withLoopMonitor<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; maxBlockMs: number; longestGc: GcPause }> {
  const monitor = startLoopMonitor();
  let longestGc: GcPause = { ms: 0, kind: 'none' };
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const detail = (e as { detail?: { kind?: number } }).detail;
      const kind = GC_KINDS[detail?.kind ?? -1] ?? 'other';
      if (e.duration > longestGc.ms) longestGc = { ms: e.duration, kind };
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  try {
    const value = await fn();
    // One more turn so that a block at the very end is recorded by the monitor's timer.
    await new Promise((r) => setTimeout(r, LOOP_RESOLUTION_MS * 2));
    return { value, maxBlockMs: monitor.maxBlockMs(), longestGc };
  } finally {
    gc.disconnect();
    monitor.stop();
  }
}
