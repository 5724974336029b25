/**
 * The thread that reads and validates a limits file for {@link loadLimitsFileInThread}
 * (limits-schema.ts): parsing YAML is the whole cost of a large file (about 3 s of CPU for
 * 10,000 entries, bench/limits/limits-file.ts), and on the event loop it would stall scrapes for
 * that long. One file per thread, which then ends. Loaded by URL, not imported: its own entry
 * point of the bundle (scripts/bundle.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChartLimits, type LimitsAnswer, LimitsFileError, loadLimitsFile } from './limits-schema.ts';

/**
 * Entries per JSON text of an answer ({@link LimitsAnswer}): the event loop parses one text at a time and lets other
 * work run in between, so a scrape waits for at most one (about 3 ms of parsing for 1,000).
 */
const BATCH = 1000;

async function answer(path: string): Promise<LimitsAnswer> {
  try {
    const charts: readonly ChartLimits[] = (await loadLimitsFile(path)).charts;
    const chartsJson: string[] = [];
    for (let i = 0; i < charts.length; i += BATCH)
      chartsJson.push(JSON.stringify(charts.slice(i, i + BATCH)));
    return { chartsJson };
  } catch (err) {
    if (err instanceof LimitsFileError) return { issues: err.issues };
    return { failed: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

parentPort?.postMessage(await answer((workerData as { path: string }).path));
