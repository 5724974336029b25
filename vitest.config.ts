import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Two projects, told apart by file name. `e2e` (`*.e2e.test.ts`): the whole exporter against the
 * simulator, real Prometheus, Alertmanager, promtool, Chromium, the container image, the CLI.
 * `unit` (every other `*.test.ts`): no child process and no network server (test/unit-guard.ts
 * makes both throw), well under a minute. `npm test` runs both; `npx vitest run --project unit`
 * runs the fast one.
 */
const E2E = 'test/**/*.e2e.test.ts';

/**
 * Whether the unit tests load modules with Node's own loader: when the node running vitest (and
 * so its workers) can load TypeScript with parameter properties, and not for coverage, whose
 * floor below was measured through Vite's transform (Node's counts branches differently).
 */
const NATIVE_LOADER =
  process.allowedNodeEnvironmentFlags.has('--experimental-transform-types') &&
  !process.argv.some((a) => a === '--coverage' || a.startsWith('--coverage.enabled'));

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // `npm run test:coverage`: v8 coverage of src/ from the unit project. The floor sits a little
    // below the level measured when it was added, so that a change that drops tests fails CI.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary'],
      reportOnFailure: true,
      // Measured when the floor was set: statements 82.67 %, branches 74.08 %, functions 79.84 %, lines 83.99 %.
      thresholds: { statements: 80, branches: 72, functions: 78, lines: 82 },
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [E2E],
          setupFiles: ['test/unit-guard.ts'],
          // Node's own loader instead of Vite's module runner where Node can transform the types
          // (parameter properties in src need more than stripping): the unit tests use no module
          // mocks and no import.meta.vitest, and transforming every module through Vite cost
          // more CPU than Node's transform.
          experimental: { viteModuleRunner: !NATIVE_LOADER, nodeLoader: false },
          execArgv: NATIVE_LOADER
            ? ['--experimental-transform-types', '--disable-warning=ExperimentalWarning']
            : [],
          // One module graph per worker instead of one per file: importing zod, undici and src/
          // again for each of 160 files cost more CPU than the tests themselves. This holds
          // because unit tests keep no state between files: no module mocks, spies restored,
          // fake timers reset (src keeps no mutable module-level state beyond caches).
          isolate: false,
          // V8's compile cache for what node loads itself, such as the thread that parses a large
          // approved-limits file (src/config/limits-worker.ts), which loads zod and the config
          // schema each time (0.6 s of CPU, 0.3 s cached).
          env: {
            NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
            // Temporary files in memory where Linux offers it: creating a file under a disk-backed
            // /tmp costs some 1.2 ms of CPU (5 ms wall), and a few tests write hundreds of them.
            ...(existsSync('/dev/shm') ? { TMPDIR: '/dev/shm' } : {}),
          },
        },
      },
      // Only the e2e tests spawn dist/ (the unit ones start no process): the unit project does not
      // wait for a rebuild after each change to src/.
      { extends: true, test: { name: 'e2e', include: [E2E], globalSetup: ['test/global-setup.ts'] } },
    ],
  },
});
