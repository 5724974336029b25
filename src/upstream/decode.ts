/**
 * The last layer of the client: an answer's envelope decoded in fair steps and its data mapped
 * into domain types. Decoding runs in bounded steps taken round robin between collectors: no
 * whole answer is ever parsed at once (only one slice's objects exist at a time), and one
 * collector's huge answer delays another's decoding by at most one step per round: decoded
 * whole, one huge answer would hold every other collector's answers and the answers-in-hand slots
 * their requests wait for.
 */
import type { LoopYielder } from '../util/loop-yield.ts';
import type { Endpoint } from './endpoints.ts';
import { decodeEnvelope, type EnvelopeData, EnvelopeError, type StepRunner } from './envelope.ts';
import { UpstreamError } from './errors.ts';
import type { Answer } from './layers.ts';
import { Limiter } from './limiter.ts';

/** Endpoints whose answers are record lists, often megabytes each. */
export const RECORD_ENDPOINTS: ReadonlySet<Endpoint> = new Set<Endpoint>(['metrics', 'units']);

/** How one answer's data is read. */
export interface DataReading<T> {
  readonly collector: string;
  readonly endpoint: Endpoint;
  /** The endpoint answers with a list: anything but an array is an invalid body, not an empty list. */
  readonly list: boolean;
  /**
   * Maps the answer's `data`: for a list on a record endpoint, its item slices (read a slice at
   * a time); otherwise the value, a list as one array.
   */
  readonly map: (data: unknown) => T | Promise<T>;
}

/** What {@link AnswerDecoder} needs. */
export interface DecoderOptions {
  readonly yielder: LoopYielder;
  /** Most elements of `data` one answer may hold. */
  readonly maxItems: number;
}

/** Decodes answers in bounded steps, each collector in a lane, round robin between lanes. */
export class AnswerDecoder {
  readonly #gate: Limiter = new Limiter({ concurrency: 1, ratePerSecond: Number.POSITIVE_INFINITY });
  readonly #yielder: LoopYielder;
  readonly #maxItems: number;

  constructor(opts: DecoderOptions) {
    this.#yielder = opts.yielder;
    this.#maxItems = opts.maxItems;
  }

  /**
   * Decodes an answer's envelope in fair steps and maps its data; settles the answer, or fails
   * it as an invalid or too large body (never retried: the same answer would come again).
   */
  async decode<T>(answer: Answer, reading: DataReading<T>): Promise<T> {
    const { collector, endpoint, list, map } = reading;
    let result: T;
    try {
      const data = await decodeEnvelope(answer.bytes, this.answer(collector), {
        maxItems: this.#maxItems,
      });
      if (list && data.kind !== 'list') throw new EnvelopeError('invalid', 'data is not an array');
      result = await map(await dataFor(endpoint, data));
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      const reason = err.kind === 'too_large' ? 'too_large' : 'invalid_body';
      const e = new UpstreamError(endpoint, reason, { message: `${endpoint}: ${err.message}` });
      answer.settle?.(e);
      throw e;
    }
    answer.settle?.();
    return result;
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

/** Record lists are mapped a slice at a time; other data is handed over whole. */
async function dataFor(endpoint: Endpoint, data: EnvelopeData): Promise<unknown> {
  if (data.kind === 'value') return data.value;
  return RECORD_ENDPOINTS.has(endpoint) ? data.items : data.items.all();
}
