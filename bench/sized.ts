/** Runs bench/exporter-child.ts: the exporter alone, at about a given series count. */
import { forkTs, nextMessage, stopChild } from './child.ts';
import type { SizedRunArgs, SizedRunResult } from './protocol.ts';

const isResult = (m: unknown): m is SizedRunResult => (m as { type?: unknown } | null)?.type === 'sized-run';

/** Starts the child, waits for its report, and makes sure it is gone. */
export async function runSizedExporter(args: SizedRunArgs): Promise<SizedRunResult> {
  const child = forkTs('./exporter-child.ts', args);
  try {
    return await nextMessage(child, isResult);
  } finally {
    await stopChild(child);
  }
}
