/** Worst event-loop block while something runs, from `perf_hooks.monitorEventLoopDelay`. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

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

/** Runs `fn` under a fresh monitor and returns its result with the worst block seen meanwhile. */
export async function withLoopMonitor<T>(fn: () => Promise<T>): Promise<{ value: T; maxBlockMs: number }> {
  const monitor = startLoopMonitor();
  try {
    const value = await fn();
    // One more turn so that a block at the very end is recorded by the monitor's timer.
    await new Promise((r) => setTimeout(r, LOOP_RESOLUTION_MS * 2));
    return { value, maxBlockMs: monitor.maxBlockMs() };
  } finally {
    monitor.stop();
  }
}
