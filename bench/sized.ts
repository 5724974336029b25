/** Runs bench/exporter-child.ts: the exporter alone, at about a given series count. */
import { runChild } from './child.ts';
import type { SizedRunArgs, SizedRunResult } from './protocol.ts';

const isResult = (m: unknown): m is SizedRunResult => (m as { type?: unknown } | null)?.type === 'sized-run';

/** Starts the child, waits for its report, and makes sure it is gone. */
export function runSizedExporter(args: SizedRunArgs): Promise<SizedRunResult> {
  return runChild('./exporter-child.ts', args, isResult);
}
