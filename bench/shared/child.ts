/** Starting TypeScript children with tsx, and waiting for their messages. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemoryLimit } from '../exporter/memory-limit.ts';

/** tsx's loader, resolved from this package so the child works whatever the working directory. */
const TSX = import.meta.resolve('tsx');

/**
 * Forks the TypeScript file at `file` (a URL the caller resolves against its own module) under tsx
 * with an IPC channel; `arg` goes to the child as JSON in argv[2].
 * With `limit`, the child runs under that memory limit.
 */
export function forkTs(file: URL, arg: unknown, limit?: MemoryLimit): ChildProcess {
  const path = fileURLToPath(file);
  // Default node flags, as required by the benchmark; stdout is ours, stderr passes through.
  return fork(path, [JSON.stringify(arg)], {
    execArgv: ['--import', TSX, ...(limit?.execArgv ?? [])],
    ...(limit?.execPath ? { execPath: limit.execPath } : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A guard for a child's messages of one `type` (every message of the bench's children has one). */
export function isMessage<M extends { readonly type: string }>(type: M['type']) {
  return (msg: unknown): msg is M =>
    typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === type;
}

/** Resolves with the child's next message that passes `accept`; rejects if the child exits first. */
export function nextMessage<T>(child: ChildProcess, accept: (msg: unknown) => msg is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: unknown) => {
      if (!accept(msg)) return;
      cleanup();
      resolve(msg);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`child ${child.pid} exited (code ${code}, signal ${signal}) before answering`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Ends a child by its own pid and waits for it to be gone. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Forks `file`, waits for the one message that passes `accept`, and makes sure the child is gone. */
export async function runChild<T>(
  file: URL,
  arg: unknown,
  accept: (msg: unknown) => msg is T,
  limit?: MemoryLimit,
): Promise<T> {
  const child = forkTs(file, arg, limit);
  try {
    return await nextMessage(child, accept);
  } finally {
    await stopChild(child);
    limit?.cleanup();
  }
}
