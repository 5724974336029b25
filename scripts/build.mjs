#!/usr/bin/env node
/**
 * `npm run build`: compiles all of src/ to dist/ with tsc (tsconfig.build.json), from a clean dist/
 * so that files moved or deleted in src/ leave nothing behind.
 * `--if-stale` compiles only when src/ or the build settings changed since the last build, so that
 * `npm start` and the tests can call it every time for free.
 * Plain JavaScript, because it runs before anything is compiled.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
const SETTINGS = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

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
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('typescript is not installed: run `npm ci` (with dev dependencies) before building');
  }
  rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
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
