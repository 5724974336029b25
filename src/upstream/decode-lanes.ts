/**
 * Decoding answers fairly between collectors: every collector has a lane, and the bounded steps
 * of their decoding (indexing a body, parsing and mapping a slice of records) run one at a time,
 * each after a yield to the event loop, round robin between the lanes with work.
 *
 * Why: decoded a whole answer at a time, one hostile or very large answer holds every other
 * collector's answers, and the slots (of the client's limit on record answers in hand) their
 * next requests wait for. In steps taken round robin, a collector waits at most one step of each
 * other busy lane.
 */
import type { LoopYielder } from '../util/loop-yield.ts';
import type { StepRunner } from './envelope.ts';
import { Limiter } from './limiter.ts';

/** The decoding steps of every collector, round robin between them. */
export class DecodeLanes {
  readonly #gate: Limiter = new Limiter({ concurrency: 1, ratePerSecond: Number.POSITIVE_INFINITY });
  readonly #yielder: LoopYielder;

  constructor(yielder: LoopYielder) {
    this.#yielder = yielder;
  }

  /**
   * The steps of one answer of `lane` (a collector): the first at once (it is bounded, and most
   * answers, a station summary, need no other), each later one after a yield to the event loop,
   * when its lane is next.
   */
  answer(lane: string): StepRunner {
    const later = this.lane(lane);
    let first = true;
    return (step) => {
      if (!first) return later(step);
      first = false;
      return Promise.resolve().then(step);
    };
  }

  /** Runs the steps of `lane` (a collector): each after a yield to the event loop, when its lane is next. */
  lane(lane: string): StepRunner {
    return (step) =>
      this.#gate.run(async () => {
        // Yield to the event loop first: pending I/O and timers (a scrape, other requests) go before.
        await this.#yielder.yieldToLoop();
        return step();
      }, lane);
  }
}
