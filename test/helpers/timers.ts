/** Manual timers for tests: nothing fires until the test moves time with `fire`/`advance`. */
import type { LoopTimers } from '../../src/scheduler/loop.ts';

export function manualTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: LoopTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      due.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (h) => void due.delete(h as number),
  };
  /** Moves time and runs the timers now due, synchronously. */
  const fire = (ms: number) => {
    now += ms;
    for (const [id, t] of [...due]) {
      if (t.at <= now) {
        due.delete(id);
        t.fn();
      }
    }
  };
  const flush = () => new Promise<void>((r) => setImmediate(r));
  /** Like `fire`, then lets the callbacks' promises settle for one turn. */
  const advance = async (ms: number) => {
    fire(ms);
    await flush();
  };
  return { timers, fire, advance, flush };
}
