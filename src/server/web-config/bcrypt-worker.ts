/**
 * The bcrypt thread of bcrypt-pool.ts; it times the hash itself, without the queue, for auth.ts's
 * padding. Loaded by URL: its own entry point of the bundle (scripts/bundle.mjs).
 */
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

/** A comparison asked of the thread. */
export interface BcryptJob {
  readonly id: number;
  readonly password: string;
  readonly hash: string;
}

/** Its answer: `ms` is the time the comparison took in the thread. */
export interface BcryptAnswer {
  readonly id: number;
  readonly ok: boolean;
  readonly ms: number;
}

parentPort?.on('message', (job: BcryptJob) => {
  const start = performance.now();
  let ok = false;
  try {
    ok = bcrypt.compareSync(job.password, job.hash);
  } catch {
    // A malformed hash never matches; the loaded config only holds well-formed ones.
  }
  const answer: BcryptAnswer = { id: job.id, ok, ms: performance.now() - start };
  parentPort?.postMessage(answer);
});
