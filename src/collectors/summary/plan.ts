/**
 * Fetches the summaries behind the summary collector: one request per level entity and
 * window, with all of the entity's station ids, so that unique counts and yields across
 * stations come from the upstream and are never combined locally.
 */

import type { WindowSpec } from '../../config/schema.ts';
import { windowBounds } from '../../time/windows.ts';
import { type UpstreamClient, windowParams } from '../../upstream/client.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { Entity, Level, Topology } from '../topology/types.ts';
import type { SummaryResult } from './families.ts';

export interface SummaryPollOptions {
  readonly levels: readonly Level[];
  readonly windows: readonly WindowSpec[];
  readonly yieldScale: 'ratio' | 'percent';
  readonly maxUrlLength: number;
  /** How long a failed entity keeps its last good answer before its series go away. */
  readonly maxStalenessMs: number;
}

/** Last good answers by entity and window, carried from poll to poll. */
export type SummaryMemory = ReadonlyMap<string, { readonly result: SummaryResult; readonly at: number }>;

export interface SummaryPoll {
  readonly results: SummaryResult[];
  readonly memory: SummaryMemory;
  /** Requests that failed (timeouts, 5xx, network, bad bodies); 403/404 are not failures. */
  readonly failures: number;
  readonly firstError?: UpstreamError | Error;
  /** Entities skipped per level because their URL would be too long. */
  readonly skipped: ReadonlyMap<Level, number>;
  readonly requests: number;
  /** A ratio field outside 0..1 after scaling: the configured `yield_scale` looks wrong. */
  readonly scaleMismatch: boolean;
}

const RATIO_KEYS = ['firstPassYield', 'finalYield', 'retryRate'] as const;

function entitiesOf(topology: Topology, level: Level): readonly Entity[] {
  switch (level) {
    case 'station':
      return topology.stations;
    case 'group':
      return topology.groups;
    case 'line':
      return topology.lines;
    case 'site':
      return topology.sites;
  }
}

function scale(
  summary: StationSummary,
  yieldScale: 'ratio' | 'percent',
): { summary: StationSummary; odd: boolean } {
  const out: Record<string, number | undefined> = { ...summary };
  let odd = false;
  for (const key of RATIO_KEYS) {
    const v = summary[key];
    if (v === undefined) continue;
    const r = yieldScale === 'percent' ? v / 100 : v;
    if (r < 0 || r > 1) odd = true;
    out[key] = r;
  }
  return { summary: out as StationSummary, odd };
}

/** Runs one summary poll. `now` fixes every window's end for the whole poll. */
export async function pollSummaries(
  client: UpstreamClient,
  topology: Topology,
  opts: SummaryPollOptions,
  now: Date,
  previous: SummaryMemory,
  signal?: AbortSignal,
): Promise<SummaryPoll> {
  const memory = new Map<string, { result: SummaryResult; at: number }>();
  // Slots in topology order, so the exposition order does not depend on answer timing.
  const slots: Array<SummaryResult | undefined> = [];
  const skipped = new Map<Level, number>();
  // Entities with the same station set (a one-station line, a one-line site) share a request.
  const inflight = new Map<string, Promise<StationSummary | undefined>>();
  let failures = 0;
  let firstError: Error | undefined;
  let scaleMismatch = false;
  const tasks: Promise<void>[] = [];

  for (const win of opts.windows) {
    const { from, to } = windowBounds(win, now);
    for (const level of opts.levels) {
      for (const entity of entitiesOf(topology, level)) {
        const query = { stationIds: entity.stationIds, from, to, signal };
        if (client.url('/station/summary', windowParams(query)).length > opts.maxUrlLength) {
          skipped.set(level, (skipped.get(level) ?? 0) + 1);
          continue;
        }
        const key = `${level}|${entity.id}|${win.name}`;
        const reqKey = `${entity.stationIds.join(',')}|${from.getTime()}|${to.getTime()}`;
        const slot = slots.push(undefined) - 1;
        let req = inflight.get(reqKey);
        if (!req) {
          req = client.stationSummary(query).catch((err: unknown) => {
            if (err instanceof UpstreamError && (err.status === 403 || err.status === 404)) return undefined;
            throw err;
          });
          inflight.set(reqKey, req);
        }
        tasks.push(
          req.then(
            (summary) => {
              if (!summary) return;
              const scaled = scale(summary, opts.yieldScale);
              scaleMismatch ||= scaled.odd;
              const result = {
                level,
                labels: entity.labels.with('window', win.name),
                summary: scaled.summary,
              };
              slots[slot] = result;
              memory.set(key, { result, at: now.getTime() });
            },
            (err: unknown) => {
              failures++;
              firstError ??= err instanceof Error ? err : new Error(String(err));
              const last = previous.get(key);
              if (last && now.getTime() - last.at <= opts.maxStalenessMs) {
                slots[slot] = last.result;
                memory.set(key, last);
              }
            },
          ),
        );
      }
    }
  }
  await Promise.all(tasks);
  return {
    results: slots.filter((r): r is SummaryResult => r !== undefined),
    memory,
    failures,
    firstError,
    skipped,
    requests: inflight.size,
    scaleMismatch,
  };
}
