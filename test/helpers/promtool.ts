/**
 * Locates promtool for tests that validate exposition output. Tests use
 * `it.skipIf(!promtoolPath() && !process.env.CI)`, so a missing promtool fails under CI.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Path of an executable promtool: $PROMTOOL, else the first one on $PATH; undefined when absent. */
export function promtoolPath(): string | undefined {
  const candidates = [
    process.env.PROMTOOL,
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => dir && path.join(dir, 'promtool')),
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // Not there or not executable: try the next one.
    }
  }
  return undefined;
}

/** Result of `promtool check metrics`: exit status 0 and no lint output means accepted. */
export interface PromtoolResult {
  readonly ok: boolean;
  readonly output: string;
}

/** Feeds exposition text to `promtool check metrics` on stdin. Throws when promtool is missing. */
export function checkMetrics(text: string): PromtoolResult {
  const bin = promtoolPath();
  if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
  const r = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return { ok: r.status === 0 && output === '', output };
}
