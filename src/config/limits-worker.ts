/**
 * The thread that parses a limits file for loadLimitsFileInThread: parsing YAML (3 s of CPU for
 * 10,000 entries, bench/limits/limits-file.ts) would stall scrapes on the event loop. Loaded by URL.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChartLimits, type LimitsAnswer, LimitsFileError, parseLimits } from './limits-schema.ts';

/** Entries per JSON text of an answer: a scrape waits for the parsing of one (about 3 ms). */
const BATCH = 1000;

function answer(path: string, text: string): LimitsAnswer {
  try {
    const charts: readonly ChartLimits[] = parseLimits(text, path).charts;
    const chartsJson: string[] = [];
    for (let i = 0; i < charts.length; i += BATCH)
      chartsJson.push(JSON.stringify(charts.slice(i, i + BATCH)));
    return { chartsJson };
  } catch (err) {
    if (err instanceof LimitsFileError) return { issues: err.issues };
    return { failed: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

const { path, text } = workerData as { path: string; text: string };
parentPort?.postMessage(answer(path, text));
