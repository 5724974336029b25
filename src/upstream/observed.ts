/**
 * Observability as a layer of the client: each attempt, failure, retry and skipped record, for
 * self-metrics, logs and the status page; the transport, decoder and operations know nothing of it.
 */
import type { Endpoint } from './endpoints.ts';
import { type StatusClass, statusClass, UpstreamError } from './errors.ts';
import type { Answer, Authorized, Step } from './layers.ts';

/** One attempt on the wire, as the observer hears of it. */
export interface RequestEvent {
  readonly endpoint: Endpoint;
  readonly statusClass: StatusClass;
  /** The collector whose request it was (`shared` outside any collector). */
  readonly collector: string;
  /** From sending to the last byte of the body. */
  readonly seconds: number;
  /** The answer's body on the wire (0 when none came). */
  readonly bytes: number;
}

/** Records of one answer skipped at the edge, for one reason. */
interface SkippedRecords {
  readonly endpoint: Endpoint;
  readonly reason: string;
  readonly count: number;
  readonly collector: string;
}

/**
 * Who hears what the client does: each attempt once (when decoded or failed), every failure and
 * answer that does not decode, each retry, and the records an answer's mapping skipped.
 */
export interface ClientObserver {
  readonly request?: (event: RequestEvent) => void;
  readonly error?: (error: UpstreamError) => void;
  readonly retry?: (endpoint: Endpoint, err: UpstreamError, delayMs: number) => void;
  readonly skipped?: (skipped: SkippedRecords) => void;
}

/**
 * Times each attempt of `next` and reports it once to `observer`: a failure at once, an answer
 * when the decoder settles it (its body may still prove invalid).
 */
export function observing(
  next: Step<Authorized>,
  observer: ClientObserver,
  monotonic: () => number,
): Step<Authorized> {
  return async (sending) => {
    const started = monotonic();
    const hear = (
      outcome: number | UpstreamError,
      at: { readonly seconds: number; readonly bytes: number },
    ) => {
      const failed = outcome instanceof UpstreamError;
      const cls = failed ? statusClass(outcome.status, outcome.reason) : statusClass(outcome);
      const { endpoint, collector } = sending;
      observer.request?.({ endpoint, collector, statusClass: cls, ...at });
      if (failed) observer.error?.(outcome);
    };
    let answer: Answer;
    try {
      answer = await next(sending);
    } catch (err) {
      const seconds = (monotonic() - started) / 1000;
      if (err instanceof UpstreamError) hear(err, { seconds, bytes: err.receivedBytes ?? 0 });
      throw err;
    }
    const at = { seconds: (monotonic() - started) / 1000, bytes: answer.wireBytes };
    return { ...answer, settle: (failure) => hear(failure ?? answer.status, at) };
  };
}
