/**
 * Runs bench/exporter/combined-child.ts: the exporter alone at about 100k series plus the
 * control charts of bench/spc/control.ts in the same process, under a memory limit, and tells
 * whether the process lived (an OOM kill is a result here, not an error).
 */

import { nextMessage, stopChild } from '../shared/child.ts';
import type { CombinedRunArgs, CombinedRunResult, RssMark } from '../shared/protocol.ts';
import { bundledChild } from './child-build.ts';
import type { MemoryLimit } from './memory-limit.ts';
import { exporterConfigObject } from './scale.ts';
import { firstStations, forkShipped, type SizedRunOptions } from './sized.ts';

/** The charts of the memory targets: 5 names on 1,000 stations, the default 7-day rolling baseline. */
export const COMBINED_CONTROL = { stations: 1000, baselineHours: 168 } as const;

/** Options of the combined run: the sized run's, the limit it runs under and the charts'. */
export interface CombinedRunOptions extends Omit<SizedRunOptions, 'limit'> {
  readonly limit: MemoryLimit;
  readonly control: CombinedRunArgs['control'];
}

/** The result, or how the child ended without one (killed by the memory limit, or failed). */
export type CombinedOutcome =
  | { readonly ok: true; readonly run: CombinedRunResult; readonly how: string }
  | { readonly ok: false; readonly highest: RssMark; readonly error: string; readonly how: string };

const isResult = (m: unknown): m is CombinedRunResult =>
  (m as { type?: unknown } | null)?.type === 'combined-run';

/** Starts the child under `o.limit`, follows its RSS, waits for its report or its end. */
export async function runCombined(o: CombinedRunOptions): Promise<CombinedOutcome> {
  const ids = await firstStations(o.sim.url, o.stations);
  const raw = exporterConfigObject(o.params, o.sim.url, o.sim.measurementNames, o.params.windows);
  const args: CombinedRunArgs = {
    config: { ...raw, discovery: { station_ids: ids } },
    nowMs: o.sim.now(),
    steadyPolls: o.steadyPolls,
    idleMs: o.idleMs,
    control: o.control,
  };
  // Bundled as the exporter ships (see child-build.ts): tsx's loader thread is no part of the exporter.
  const child = forkShipped(bundledChild('combined-child.ts'), args, o);
  let highest: RssMark = { rssBytes: 0, at: 'start' };
  child.on('message', (m: ({ type?: string } & Partial<RssMark>) | null) => {
    if (m?.type === 'combined-rss' && m.rssBytes !== undefined && m.at !== undefined)
      highest = { rssBytes: m.rssBytes, at: m.at, ...(m.detail ? { detail: m.detail } : {}) };
  });
  try {
    return { ok: true, run: await nextMessage(child, isResult), how: o.limit.how };
  } catch (e) {
    return { ok: false, highest, error: (e as Error).message, how: o.limit.how };
  } finally {
    await stopChild(child);
    o.limit.cleanup();
  }
}
