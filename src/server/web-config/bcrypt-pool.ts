/**
 * bcrypt in worker threads: bcryptjs on the event loop makes an honest scraper wait behind a flood
 * of wrong passwords (docs/scaling.md, "Mechanisms and what each one buys").
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BcryptAnswer, BcryptJob } from './bcrypt-worker.ts';

/** A comparison's result and the time the hash itself took, in milliseconds. */
export interface Comparison {
  readonly ok: boolean;
  readonly ms: number;
}

/** One core stays with the event loop, and at most two go to bcrypt, whatever the host. */
const BCRYPT_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));

// Under tsx and vitest beside the worker's source; bundled, beside bcrypt-worker.js, an entry
// point of every bundle (scripts/bundle.mjs).
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './bcrypt-worker.ts' : './bcrypt-worker.js',
  import.meta.url,
);

interface Pending {
  readonly job: BcryptJob;
  readonly resolve: (c: Comparison) => void;
  readonly reject: (e: Error) => void;
}

/** A small pool of bcrypt threads, started when first needed; idle, they do not keep the process alive. */
export class BcryptPool {
  readonly #threads: number;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, Pending>();
  readonly #waiting: Pending[] = [];
  #nextId = 0;

  constructor(threads = BCRYPT_THREADS) {
    this.#threads = threads;
  }

  /** Compares `password` with `hash` in a thread; rejects when the thread dies. */
  compare(password: string, hash: string): Promise<Comparison> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ job: { id: this.#nextId++, password, hash }, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#waiting.length > 0) {
      const worker = this.#idle.pop() ?? this.#start();
      if (worker === undefined) return;
      const next = this.#waiting.shift() as Pending;
      this.#busy.set(worker, next);
      // A thread keeps the process alive while it works for a request, never while idle.
      worker.ref();
      worker.postMessage(next.job);
    }
  }

  #start(): Worker | undefined {
    if (this.#busy.size + this.#idle.length >= this.#threads) return undefined;
    const worker = new Worker(WORKER_URL);
    worker.on('message', (answer: BcryptAnswer) => {
      const pending = this.#busy.get(worker);
      this.#busy.delete(worker);
      this.#idle.push(worker);
      worker.unref();
      pending?.resolve({ ok: answer.ok, ms: answer.ms });
      this.#dispatch();
    });
    // A failed thread fails its comparison; the next comparison starts a new one.
    const fail = (err: Error) => {
      const pending = this.#busy.get(worker);
      this.#busy.delete(worker);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
      pending?.reject(err);
      this.#dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`bcrypt thread exited with code ${code}`)));
    return worker;
  }
}
