/**
 * Decoding answers fairly: each collector has a lane, and the bounded steps of decoding run one at
 * a time after a yield, round robin between lanes. Decoded whole, one huge answer would hold every
 * other collector's answers and the answers-in-hand slots their requests wait for.
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

  /** The steps of one answer of `lane`: the first at once (most answers need no other), then by lane. */
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
