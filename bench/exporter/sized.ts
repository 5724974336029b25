/**
 * Runs bench/exporter/exporter-child.mjs: the exporter alone, bundled as it ships, at about a given series
 * count, optionally under a memory limit, moving the simulator's clock when it asks.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startFlags } from '../../src/util/heap-ceiling.ts';
import { nextMessage, stopChild } from '../shared/child.ts';
import type { SizedRunResult } from '../shared/protocol.ts';
import { bundledChild } from './child-build.ts';
import type { MemoryLimit } from './memory-limit.ts';
import { BENCH_TOKEN, type BenchParams, exporterConfigObject } from './scale.ts';
import type { SimProcess } from './sim-process.ts';

const isResult = (m: unknown): m is SizedRunResult => (m as { type?: unknown } | null)?.type === 'sized-run';

interface SitesBody {
  data: Array<{
    lines: Array<{ elements: Array<{ id: string; type: string; stations?: Array<{ id: string }> }> }>;
  }>;
}

/** The first `n` stations of the plant, in the order of `/sites`. */
export async function firstStations(url: string, n: number): Promise<string[]> {
  const res = await fetch(`${url}/sites`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  const body = (await res.json()) as SitesBody;
  const ids = body.data.flatMap((s) =>
    s.lines.flatMap((l) =>
      l.elements.flatMap((e) => (e.type === 'group' ? (e.stations ?? []).map((x) => x.id) : [e.id])),
    ),
  );
  return ids.slice(0, n);
}

/** Options of one sized run. */
export interface SizedRunOptions {
  readonly sim: SimProcess;
  readonly params: BenchParams;
  readonly stations: number;
  /** Steady-state polls after the first, one interval apart on the simulated clock. */
  readonly steadyPolls: number;
  /** Real time idled after each poll before the next reading. */
  readonly idleMs: number;
  readonly limit?: MemoryLimit;
  /** Node flags the child starts with besides the limit's and the binary's (to compare settings). */
  readonly execArgv?: readonly string[];
  /** Extra environment of the child, over the binary's (e.g. MALLOC_ARENA_MAX, to compare allocators). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Starts the child, answers its clock requests, waits for its report, and makes sure it is gone. */
export async function runSizedExporter(o: SizedRunOptions): Promise<SizedRunResult> {
  const ids = await firstStations(o.sim.url, o.stations);
  const raw = exporterConfigObject(o.params, o.sim.url, o.sim.measurementNames, o.params.windows);
  const args = {
    config: { ...raw, discovery: { station_ids: ids } },
    nowMs: o.sim.now(),
    steadyPolls: o.steadyPolls,
    idleMs: o.idleMs,
  };
  const child = forkShipped(bundledChild('exporter-child.mjs'), args, o);
  try {
    return await nextMessage(child, isResult);
  } finally {
    await stopChild(child);
    o.limit?.cleanup();
  }
}

/**
 * Forks `file` with `arg` as JSON in argv[2] as the exporter ships: with the flags and
 * environment bin/station-exporter.js would start node with (and `o`'s limit, flags and
 * environment on top), answering the child's requests to move the simulator's clock.
 */
export function forkShipped(
  file: URL,
  arg: unknown,
  o: Omit<SizedRunOptions, 'stations' | 'steadyPolls' | 'idleMs'>,
): ChildProcess {
  const shipped = startFlags({
    args: [],
    execArgv: [...(o.limit?.execArgv ?? []), ...(o.execArgv ?? [])],
    env: { ...process.env, ...o.env },
    constrainedMemoryBytes: o.limit?.bytes ?? 0,
    totalMemoryBytes: totalmem(),
  });
  const child = fork(fileURLToPath(file), [JSON.stringify(arg)], {
    execArgv: [...shipped.execArgv, ...(o.limit?.execArgv ?? []), ...(o.execArgv ?? [])],
    ...(o.limit?.execPath ? { execPath: o.limit.execPath } : {}),
    env: { ...process.env, ...shipped.env, ...o.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (m: { type?: string } | null) => {
    if (m?.type !== 'advance') return;
    void o.sim.advance(o.params.intervalMs).then(() => child.send({ type: 'now', nowMs: o.sim.now() }));
  });
  return child;
}

/** The highest RSS from the end of the first poll on: what an operator sees once it runs. */
export function maxRss(r: SizedRunResult): number {
  return Math.max(...r.readings.filter((x) => x.at !== 'start').map((x) => x.rssBytes));
}
