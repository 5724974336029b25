/**
 * The thread that reads and validates a limits file for {@link loadLimitsFileInThread}
 * (limits-schema.ts): parsing YAML is the whole cost of a large file (about 3 s of CPU for
 * 10,000 entries, bench/limits/limits-file.ts), and on the event loop it would stall scrapes for
 * that long. One file per thread, which then ends. Loaded by URL, not imported: its own entry
 * point of the bundle (scripts/bundle.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChartLimits, LimitsFileError, loadLimitsFile } from './limits-schema.ts';

/**
 * The thread's one answer: the validated entries as JSON text (the event loop parses 10,000 of
 * them from JSON in about half the time a structured clone takes, into objects it then reads
 * faster), or every problem of the file.
 */
export type LimitsAnswer =
  | { readonly chartsJson: string }
  | { readonly issues: readonly string[] }
  | { readonly failed: string };

async function answer(path: string): Promise<LimitsAnswer> {
  try {
    const charts: readonly ChartLimits[] = (await loadLimitsFile(path)).charts;
    return { chartsJson: JSON.stringify(charts) };
  } catch (err) {
    if (err instanceof LimitsFileError) return { issues: err.issues };
    return { failed: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

parentPort?.postMessage(await answer((workerData as { path: string }).path));
