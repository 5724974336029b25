/**
 * A circuit breaker per endpoint: after `threshold` service failures in a row requests fail at
 * once, so a struggling service is not kept under full load. Every `probeIntervalMs` one request
 * is let through (half-open) and its outcome closes or reopens the circuit. Refusals (4xx other
 * than 429) say nothing about the service's health and leave the breaker as it is.
 */

import { getOrCreate } from '../util/maps.ts';
import type { Endpoint } from './endpoints.ts';
import { isTransient, UpstreamError } from './errors.ts';

/** Failures that say the service is unwell: transient ones, and any 5xx. */
function isServiceFailure(err: unknown): boolean {
  return isTransient(err) || (err instanceof UpstreamError && (err.status ?? 0) >= 500);
}

/** Breaker states; the numbers are the exported gauge values. */
export const CIRCUIT_STATES = { closed: 0, half_open: 1, open: 2 } as const;
export type CircuitState = keyof typeof CIRCUIT_STATES;

/** The breaker's settings; `onChange` hears every state change (a log line, the gauge). */
export interface BreakerOptions {
  readonly threshold: number;
  readonly probeIntervalMs: number;
  readonly now: () => number;
  readonly onChange?: (endpoint: Endpoint, state: CircuitState, failures: number) => void;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openedAt: number;
  /** The first failure of the run: an open circuit's refusals name it, to show why requests stop. */
  firstCause?: string;
  /** The probe in flight; requests arriving meanwhile wait for its outcome. */
  probe?: Promise<unknown>;
}

/** A failure's message without the endpoint prefix the circuit's own message already gives. */
function causeOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^[a-z/_]+: /, '');
}

/** One circuit breaker per endpoint. */
export class Breakers {
  readonly #opts: BreakerOptions;
  readonly #circuits = new Map<Endpoint, Circuit>();

  constructor(opts: BreakerOptions) {
    this.#opts = opts;
  }

  /** Runs `task` through the endpoint's breaker, or rejects at once with reason `circuit_open`. */
  async run<T>(endpoint: Endpoint, task: () => Promise<T>): Promise<T> {
    const c = this.#circuit(endpoint);
    // Requests that arrive during a probe wait for it: on success they go ahead at once,
    // so that recovery does not cost one more interval.
    while (c.probe) await c.probe.catch(() => undefined);
    if (c.state === 'closed') return this.#attempt(endpoint, c, { task, probe: false });
    if (this.#opts.now() - c.openedAt < this.#opts.probeIntervalMs) {
      throw new UpstreamError(endpoint, 'circuit_open', {
        message: `${endpoint}: circuit open after ${c.failures} failures in a row, the first: ${c.firstCause ?? 'unknown'}; not sent`,
      });
    }
    this.#move(endpoint, c, 'half_open');
    const probe = this.#attempt(endpoint, c, { task, probe: true });
    c.probe = probe;
    try {
      return await probe;
    } finally {
      c.probe = undefined;
    }
  }

  #circuit(e: Endpoint): Circuit {
    return getOrCreate(this.#circuits, e, () => ({ state: 'closed', failures: 0, openedAt: 0 }));
  }

  #move(e: Endpoint, c: Circuit, state: CircuitState): void {
    if (c.state === state) return;
    c.state = state;
    this.#opts.onChange?.(e, state, c.failures);
  }

  async #attempt<T>(
    endpoint: Endpoint,
    c: Circuit,
    run: { readonly task: () => Promise<T>; readonly probe: boolean },
  ): Promise<T> {
    const { task, probe } = run;
    try {
      const result = await task();
      this.#close(endpoint, c);
      return result;
    } catch (err) {
      if (isServiceFailure(err)) {
        c.failures++;
        if (c.failures === 1 || c.firstCause === undefined) c.firstCause = causeOf(err);
        if (probe || c.failures >= this.#opts.threshold) {
          c.openedAt = this.#opts.now();
          this.#move(endpoint, c, 'open');
        }
      } else if (probe) this.#close(endpoint, c); // a refusal or a bad body: the service answers
      throw err;
    }
  }

  #close(endpoint: Endpoint, c: Circuit): void {
    c.failures = 0;
    c.firstCause = undefined;
    this.#move(endpoint, c, 'closed');
  }
}
