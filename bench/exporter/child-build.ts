/**
 * Compiles bench/exporter/combined-child.ts, with what it imports (src/ and the control bench),
 * to plain JavaScript in .bench-build/, so that the combined run's child runs on node alone, as
 * the exporter ships. Under tsx, the child's module loader ran in a thread of its own with a
 * second V8 heap: about 40 MiB of RSS that was the benchmark's, not the exporter's (an import
 * of the wiring alone: 97 MiB on dist/, 139 MiB under tsx). The child still holds one copy
 * of the code: its src/ is compiled beside it, not taken from dist/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../', import.meta.url);
const OUT = new URL('.bench-build/', ROOT);

let built: URL | undefined;

/** The compiled child, built once per benchmark process (tsc, without type checks: a few seconds). */
export function compiledCombinedChild(): URL {
  if (built !== undefined) return built;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(new URL('bench/exporter/', OUT), { recursive: true });
  const tsconfig = new URL('tsconfig.json', OUT);
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: '../tsconfig.json',
      compilerOptions: {
        noEmit: false,
        noCheck: true,
        rootDir: '..',
        outDir: '.',
        rewriteRelativeImportExtensions: true,
        incremental: false,
      },
      files: ['../bench/exporter/combined-child.ts'],
      include: [],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', fileURLToPath(tsconfig)], { stdio: 'inherit' });
  // What the compiled files read beside them: src/version.ts reads ../package.json (which also
  // makes the .js files ES modules), and the child imports the smaps reader, plain JavaScript.
  copyFileSync(new URL('package.json', ROOT), new URL('package.json', OUT));
  copyFileSync(
    new URL('bench/exporter/memory-detail.mjs', ROOT),
    new URL('bench/exporter/memory-detail.mjs', OUT),
  );
  built = new URL('bench/exporter/combined-child.js', OUT);
  return built;
}
