/**
 * The thread that reads a limits file for loadLimitsFileInThread: parsing YAML (3 s of CPU for
 * 10,000 entries, bench/limits/limits-file.ts) would stall scrapes on the event loop. Loaded by URL.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChartLimits, type LimitsAnswer, LimitsFileError, loadLimitsFile } from './limits-schema.ts';

/** Entries per JSON text of an answer: a scrape waits for the parsing of one (about 3 ms). */
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
