#!/usr/bin/env node
/**
 * `npm run build`: builds dist/ from src/ (scripts/bundle.mjs): dist/cli.js with the chunks it
 * imports (the exporter and its runtime dependencies), and the two modules
 * bin/station-exporter.js loads before it.
 * From a clean dist/, so that nothing of an earlier build stays behind. Types are checked by
 * `npm run typecheck`, not here.
 * `--if-stale` compiles only when src/ or the build settings changed since the last build, so that
 * `npm start` and the tests can call it every time for free.
 * Plain JavaScript, because it runs before anything is compiled.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundle } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
// The lock file too: the dependencies are part of the build.
const SETTINGS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/build.mjs',
  'scripts/bundle.mjs',
];

/** Every file under src/, relative to the root, sorted. */
function sourceFiles() {
  return readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

/** Why dist/ is out of date, or null when it is current. */
function staleReason(files = sourceFiles()) {
  if (!existsSync(stamp)) return 'no build yet';
  const built = statSync(stamp).mtimeMs;
  // The file list catches sources that moved or were deleted, which no mtime shows.
  if (readFileSync(stamp, 'utf8') !== `${files.join('\n')}\n`) return 'source files added, moved or removed';
  const newer = [...SETTINGS, ...files].find((f) => statSync(path.join(root, f)).mtimeMs > built);
  return newer === undefined ? null : `${newer} changed`;
}

function compile(files) {
  rmSync(dist, { recursive: true, force: true });
  bundle({
    entryPoints: {
      cli: path.join(root, 'src/cli.ts'),
      'util/node-version': path.join(root, 'src/util/node-version.ts'),
      'util/heap-ceiling': path.join(root, 'src/util/heap-ceiling.ts'),
    },
    outdir: dist,
  });
  writeFileSync(stamp, `${files.join('\n')}\n`);
}

const files = sourceFiles();
if (process.argv.includes('--if-stale')) {
  const reason = staleReason(files);
  if (reason !== null) {
    process.stderr.write(`station-exporter: building dist/ (${reason})\n`);
    compile(files);
  }
} else {
  compile(files);
}
