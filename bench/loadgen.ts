/** Runs one bounded load run in a child process and returns what it measured. */
import { runChild } from './child.ts';
import type { LoadResult, LoadSpec } from './protocol.ts';

function isResult(msg: unknown): msg is LoadResult {
  return typeof msg === 'object' && msg !== null && 'requests' in msg && 'latencyMs' in msg;
}

/** Forks the load generator, waits for its result, and makes sure it is gone. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return runChild('./loadgen-child.ts', spec, isResult);
}

/** Requests per second of a run. */
export function throughput(r: LoadResult): number {
  return r.elapsedMs > 0 ? (r.requests * 1000) / r.elapsedMs : 0;
}
