/**
 * One recording (record.ts) in a process of its own, so that the recordings of several seeds and
 * faults run side by side: each is one exporter polling one simulator, single-threaded, and the
 * recordings are most of bench:pager's time. argv[2]: the spec as JSON (`keep` as entries);
 * answers with one `recorded` message.
 */
import type { Keep, RecordResult, RecordSpec } from './record.ts';
import { record } from './record.ts';

/** The spec as it crosses the process boundary: `keep` as entries, no progress callback. */
export type RecordChildSpec = Omit<RecordSpec, 'keep' | 'progress'> & {
  readonly keep: ReadonlyArray<readonly [string, ReadonlyArray<Readonly<Record<string, string>>>]>;
  /** Prefix of this recording's progress lines. */
  readonly label: string;
};

/** The child's answer. */
export interface RecordedMessage extends RecordResult {
  readonly type: 'recorded';
}

async function main(): Promise<void> {
  // A parent that ends (interrupted, killed) takes its recordings with it.
  process.once('disconnect', () => process.exit(1));
  // Gone already while this module loaded: the event came before the listener.
  if (!process.connected) process.exit(1);
  const raw = JSON.parse(process.argv[2] ?? '{}') as RecordChildSpec;
  const { label, keep, ...rest } = raw;
  const spec: RecordSpec = {
    ...rest,
    keep: new Map(keep) as Keep,
    progress: (text) => process.stderr.write(`${label}: ${text.trim()}\n`),
  };
  const result = await record(spec);
  const msg: RecordedMessage = { type: 'recorded', ...result };
  process.send?.(msg);
}

await main();
