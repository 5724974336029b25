/** Runs one bounded, interleaved load run in a child process and returns what it measured. */
import { isMessage, runChild } from '../shared/child.ts';
import type { LoadResult, LoadSpec } from '../shared/protocol.ts';

const isResult = isMessage<{ type: 'load'; results: LoadResult[] }>('load');

/** Forks the load generator, waits for its results (one per URL, in order), and makes sure it is gone. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult[]> {
  return (await runChild(new URL('./loadgen-child.ts', import.meta.url), spec, isResult)).results;
}

/** Requests per second of a run. */
export function throughput(r: LoadResult): number {
  return r.elapsedMs > 0 ? (r.requests * 1000) / r.elapsedMs : 0;
}
