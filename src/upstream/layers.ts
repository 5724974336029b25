/**
 * The layers one upstream GET passes through, each doing one thing, stacked in {@link createClient}
 * as undici stacks interceptors. A layer wraps the next step in a step of the same shape, so that
 * each can be tested alone with a fake `next`. Observability is one of them: each attempt,
 * failure, retry and skipped record is heard for self-metrics, logs and the status page, and the
 * transport, decoder and operations know nothing of it.
 */
import type { Breakers } from './breaker.ts';
import type { Endpoint } from './endpoints.ts';
import { type StatusClass, statusClass, UpstreamError } from './errors.ts';
import type { Limiter } from './limiter.ts';
import { type RetryPolicy, type RetryTimers, withRetries } from './retry.ts';

/** What one GET sends, whatever token it carries; `collector` names its limiter lane. */
export interface Sending {
  readonly collector: string;
  readonly endpoint: Endpoint;
  readonly url: string;
  readonly signal?: AbortSignal;
}

/** A GET with the bearer token it carries. */
export interface Authorized extends Sending {
  readonly token: string;
}

/** An answer whose status and body were read. */
export interface Answer {
  readonly status: number;
  /** The body decompressed: decoded from the bytes, never held as one string. */
  readonly bytes: Buffer;
  readonly wireBytes: number;
  /** Called once the answer is decoded (with the error when it did not); set by {@link observing}. */
  readonly settle?: (failure?: UpstreamError) => void;
}

/** One step of the stack: sends `request` and resolves with its answer. */
export type Step<R extends Sending = Sending> = (request: R) => Promise<Answer>;

/** Retries transient failures of the rest of the stack, honouring `Retry-After`. */
export function retrying(
  next: Step,
  opts: {
    readonly policy: RetryPolicy;
    readonly timers: RetryTimers;
    readonly onRetry?: (endpoint: Endpoint, err: UpstreamError, delayMs: number) => void;
  },
): Step {
  return (sending) =>
    withRetries(() => next(sending), {
      policy: opts.policy,
      timers: opts.timers,
      signal: sending.signal,
      onRetry: (err, delayMs) => opts.onRetry?.(sending.endpoint, err, delayMs),
    });
}

/** Passes every attempt through its endpoint's circuit breaker. */
export function breaking(next: Step, breakers: Breakers): Step {
  return (sending) => breakers.run(sending.endpoint, () => next(sending));
}

/** Makes every attempt wait for a slot in its collector's lane of the limiter. */
export function limited(next: Step, limiter: Limiter): Step {
  return (sending) => limiter.run(() => next(sending), sending.collector);
}

/** Where {@link renewingToken} takes the bearer token. */
export interface TokenSource {
  /** Returns the bearer token; called for every request so a rotated token file takes effect. */
  readonly token: () => string | Promise<string>;
  /** Reads the token afresh (ignoring any cache); absent: a 401 is final. */
  readonly renewToken?: () => Promise<string>;
}

/** Adds the token; a 401 re-reads it once and, when it changed, sends again with the new one. */
export function renewingToken(next: Step<Authorized>, source: TokenSource): Step {
  return async (sending) => {
    const token = await source.token();
    try {
      return await next({ ...sending, token });
    } catch (err) {
      if (!(err instanceof UpstreamError) || err.status !== 401 || !source.renewToken) throw err;
      const renewed = await source.renewToken().catch(() => token);
      if (renewed === token) throw err;
      return next({ ...sending, token: renewed });
    }
  };
}

const STALE_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);

/** True for a connection that was closed under a request before any answer came. */
export function isStaleConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && STALE_CONNECTION_CODES.has(code);
}

/**
 * Sends once more when a keep-alive connection failed as the server closed it on reuse: the GET
 * never reached the service, so sending it again is safe.
 */
export function resendingStale(next: Step<Authorized>): Step<Authorized> {
  return async (sending) => {
    try {
      return await next(sending);
    } catch (err) {
      if (err instanceof UpstreamError && err.reason === 'network' && isStaleConnection(err.cause)) {
        return next(sending);
      }
      throw err;
    }
  };
}

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
export function observing(next: Step<Authorized>, observer: ClientObserver): Step<Authorized> {
  return async (sending) => {
    const started = performance.now();
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
      const seconds = (performance.now() - started) / 1000;
      if (err instanceof UpstreamError) hear(err, { seconds, bytes: err.receivedBytes ?? 0 });
      throw err;
    }
    const at = { seconds: (performance.now() - started) / 1000, bytes: answer.wireBytes };
    return { ...answer, settle: (failure) => hear(failure ?? answer.status, at) };
  };
}
