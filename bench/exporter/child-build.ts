/**
 * The benchmark children that run the exporter (exporter-child.mjs, combined-child.ts), built
 * as the exporter ships (scripts/bundle.mjs): each with the src/ it imports and the runtime
 * dependencies in one file of plain JavaScript in .bench-build/, so that their RSS is the
 * product's. How the code is loaded is part of the RSS: at ~100k series under the pod's limit,
 * the highest read 197 to 216 MiB (mean 206) with a file per module, 181 to 206 (mean 193)
 * bundled (docs/scaling.md). Nor does a child run under tsx, whose module loader runs in a thread of
 * its own with a second V8 heap: about 40 MiB that was the benchmark's, not the exporter's.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../scripts/bundle.mjs';

const ROOT = new URL('../../', import.meta.url);
const OUT = new URL('.bench-build/', ROOT);

const built = new Map<string, URL>();

/**
 * The bundled child of `entry` (a file in bench/exporter/), built once per benchmark process
 * (esbuild: well under a second).
 */
export function bundledChild(entry: 'exporter-child.mjs' | 'combined-child.ts'): URL {
  const done = built.get(entry);
  if (done !== undefined) return done;
  if (built.size === 0) rmSync(OUT, { recursive: true, force: true });
  mkdirSync(new URL('bench/', OUT), { recursive: true });
  // What a bundle reads beside it: src/version.ts reads ../package.json, which also makes the
  // .js files ES modules.
  copyFileSync(new URL('package.json', ROOT), new URL('package.json', OUT));
  const name = entry.replace(/\.(mjs|ts)$/, '');
  bundle({
    entryPoints: { [name]: fileURLToPath(new URL(`bench/exporter/${entry}`, ROOT)) },
    outdir: fileURLToPath(new URL('bench/', OUT)),
  });
  const file = new URL(`bench/${name}.js`, OUT);
  built.set(entry, file);
  return file;
}
