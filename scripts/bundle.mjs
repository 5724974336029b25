/**
 * How the exporter's JavaScript is built, for `npm run build` (scripts/build.mjs) and for the
 * benchmark children that measure the exporter as it ships (bench/exporter/child-build.ts): each
 * entry point becomes one ES module holding its imports, the runtime dependencies included,
 * with whitespace and syntax minified and every name kept. What an entry imports dynamically
 * (the CLI loads the exporter only to run it) goes to chunks beside it, loaded when imported:
 * `--version` reads 11 KB, not the 2.5 MB the exporter needs.
 *
 * Why bundled and not one file per module (docs/scaling.md, "One bundle instead of a file per
 * module"): node keeps every loaded module's source text and compiles from it, and the first
 * poll's peak of V8 pages sits on top of that. At ~100k series under the pod's 512 MiB limit the
 * highest RSS read 197 to 216 MiB (mean 206) with tsc's file per module, 181 to 206 (mean 193)
 * bundled this way. Names stay so that stack traces and logged errors read as the source does;
 * minifying names as well measured no lower.
 * Plain JavaScript, because it runs before anything is compiled.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * CommonJS dependencies (undici, pino) call `require` for node's own modules; an ES module has
 * none, so each bundle makes one.
 */
const REQUIRE_BANNER =
  "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);";

/**
 * Modules that run in worker threads, loaded by URL rather than imported, so that no import
 * brings them into a bundle: each is an entry point of every bundle, written at the root of the
 * output folder beside the chunks whose `import.meta.url` looks for it there
 * (src/server/web-config/bcrypt-pool.ts, src/config/limits-schema.ts).
 */
const WORKER_ENTRY_POINTS = {
  'bcrypt-worker': path.join(import.meta.dirname, '../src/server/web-config/bcrypt-worker.ts'),
  'limits-worker': path.join(import.meta.dirname, '../src/config/limits-worker.ts'),
};

/**
 * Bundles `entryPoints` (and {@link WORKER_ENTRY_POINTS}) ({ output name: source file }) into `outdir`, synchronously.
 * @param {{ entryPoints: Record<string, string>, outdir: string }} o
 */
export function bundle(o) {
  let esbuild;
  try {
    esbuild = createRequire(import.meta.url)('esbuild');
  } catch {
    throw new Error('esbuild is not installed: run `npm ci` (with dev dependencies) before building');
  }
  esbuild.buildSync({
    entryPoints: { ...WORKER_ENTRY_POINTS, ...o.entryPoints },
    outdir: o.outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    // The oldest Node of package.json's engines.
    target: 'node22',
    minifyWhitespace: true,
    minifySyntax: true,
    // The dependencies' license notices, kept at the end of each file.
    legalComments: 'eof',
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
}
