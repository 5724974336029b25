/**
 * Benchmarks that run the exporter in their own process start that process again (same pid)
 * with the heap and allocator settings bin/station-exporter.js gives every user's exporter
 * (src/util/heap-ceiling.ts): measured without them, pauses and RSS are those of a process
 * nobody runs (V8 sizes its young generation from the host's 24 GiB, glibc keeps 8 arenas a core).
 */
import { totalmem } from 'node:os';
import { startFlags } from '../../src/util/heap-ceiling.ts';

/**
 * Re-executes the current process with the binary's settings, unless it already runs with them
 * (the second start adds nothing). `execArgv` comes first and wins over the binary's defaults:
 * a benchmark whose exporter is larger than the 100k series the heap ceiling is sized for gives
 * its own ceiling.
 */
export function restartWithShippedSettings(execArgv: readonly string[] = []): void {
  const given = [...execArgv.filter((f) => !process.execArgv.includes(f)), ...process.execArgv];
  const add = startFlags({
    args: [],
    execArgv: given,
    env: process.env,
    constrainedMemoryBytes: process.constrainedMemory?.() ?? 0,
    totalMemoryBytes: totalmem(),
  });
  const extra = execArgv.filter((f) => !process.execArgv.includes(f));
  if (extra.length === 0 && add.execArgv.length === 0 && Object.keys(add.env).length === 0) return;
  if (typeof process.execve !== 'function') return;
  const again = [...add.execArgv, ...given, ...process.argv.slice(1)];
  process.execve(process.execPath, [process.execPath, ...again], { ...process.env, ...add.env });
}

/** The settings this process runs with, for a results line. */
export function runningSettings(): string {
  const flags = process.execArgv.filter((a) => a.startsWith('--max'));
  const env = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'].map((k) => `${k}=${process.env[k] ?? 'unset'}`);
  return [...flags, ...env].join(', ');
}
