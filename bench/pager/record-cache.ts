/**
 * A cache of recordings. Recording is most of a run's time (the exporter polling the simulator
 * on a simulated clock), and a recording depends only on its spec and on the code that produces
 * it; a change of the rules' thresholds, `for` or the route leaves it valid, and so does a second
 * of 3 consecutive runs. The key hashes the spec (the selectors kept included) and every source
 * file under src/ and the recorder (record.ts, direct-dispatcher.ts), so a change of the exporter or simulator misses.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordSpec } from './record.ts';

/** Every file under `dir`, sorted, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The digest of the code a recording depends on. */
export function sourceDigest(root: string): string {
  const hash = createHash('sha256');
  const recorder = ['record.ts', 'direct-dispatcher.ts'].map((f) => path.join(root, 'bench/pager', f));
  for (const f of [...filesUnder(path.join(root, 'src')), ...recorder]) {
    hash.update(path.relative(root, f));
    hash.update(readFileSync(f));
  }
  return hash.digest('hex');
}

/** The cache key of a recording: its spec (without where it goes) and the code's digest. */
export function recordingKey(spec: RecordSpec, source: string): string {
  const { out: _out, progress: _progress, keep, ...rest } = spec;
  const keepEntries = [...keep].sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, keep: keepEntries, source }))
    .digest('hex')
    .slice(0, 32);
}

let digest: string | undefined;

/** Where the recording of `spec` is cached, and whether it is there. */
export function cachedRecording(
  dir: string,
  spec: RecordSpec,
): { readonly file: string; readonly hit: boolean } {
  digest ??= sourceDigest(process.cwd());
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${recordingKey(spec, digest)}.om`);
  return { file, hit: existsSync(file) };
}
