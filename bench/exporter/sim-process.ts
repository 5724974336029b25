/** The parent's handle on the simulator child: its URL, the shared clock, and its stats. */
import type { ChildProcess } from 'node:child_process';
import { forkTs, nextMessage, stopChild } from '../shared/child.ts';
import type { SimChildOptions, SimReply, SimRequest } from '../shared/protocol.ts';

/** What the simulator child reports about itself. */
export interface SimStats {
  readonly rssBytes: number;
  readonly requests: number;
  readonly cpuMs: number;
}

/** A simulator running in a child process, on a clock the parent moves. */
export interface SimProcess {
  readonly url: string;
  readonly stations: number;
  readonly measurementNames: readonly string[];
  readonly pid: number | undefined;
  now(): number;
  /** Moves the shared clock; resolves once the simulator sees the new time. */
  advance(ms: number): Promise<void>;
  /** The child's RSS and CPU time so far, and the requests it received since the last call. */
  stats(): Promise<SimStats>;
  close(): Promise<void>;
}

function isReply<K extends SimReply['type']>(type: K) {
  return (msg: unknown): msg is Extract<SimReply, { type: K }> =>
    typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === type;
}

function ask(child: ChildProcess, msg: SimRequest): void {
  child.send(msg);
}

/** Starts the simulator child and waits until it listens. */
export async function startSimProcess(opts: SimChildOptions): Promise<SimProcess> {
  const child = forkTs(new URL('./sim-child.ts', import.meta.url), opts);
  const ready = await nextMessage(child, isReply('ready')).catch(async (err) => {
    await stopChild(child);
    throw err;
  });
  let now = opts.nowMs;
  return {
    url: ready.url,
    stations: ready.stations,
    measurementNames: ready.measurementNames,
    pid: child.pid,
    now: () => now,
    async advance(ms) {
      now += ms;
      const answer = nextMessage(child, isReply('now-set'));
      ask(child, { type: 'set-now', nowMs: now });
      await answer;
    },
    async stats() {
      const answer = nextMessage(child, isReply('stats'));
      ask(child, { type: 'stats' });
      const { rssBytes, requests, cpuMs } = await answer;
      return { rssBytes, requests, cpuMs };
    },
    close: () => stopChild(child),
  };
}
