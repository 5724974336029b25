/**
 * Unused-export check (`npm run lint:exports`, part of `npm test`), run in two passes:
 * - `knip`: every export of the project is imported by another file (tests count). An export used
 *   only in its own file is un-exported.
 * - `knip --production`: every export of production code (src/, scripts/, grafana/) is used by
 *   production code, in its file or elsewhere; an export that only tests or benches use is code
 *   that production does not run ("tests use what production uses"). Reference computations
 *   that tests check production against (run lengths, a rule-by-rule evaluation) live in
 *   test/helpers/.
 * Both passes run with no allow-list: a finding is fixed, not listed.
 */
import type { KnipConfig } from 'knip';

const production = process.argv.includes('--production');

const config: KnipConfig = {
  entry: [
    // The CLI, and the two modules bin/station-exporter.js loads from dist/ before it.
    'src/cli.ts!',
    'src/util/node-version.ts!',
    'src/util/heap-ceiling.ts!',
    // Run in a worker thread, loaded by URL (src/server/web-config/bcrypt-pool.ts).
    'src/server/web-config/bcrypt-worker.ts!',
    // Run in a worker thread, loaded by URL (src/config/limits-schema.ts).
    'src/config/limits-worker.ts!',
    'scripts/*.{ts,mjs}!',
    'grafana/build.ts!',
    // The simulator's programmatic API (docs/simulator.md, "Programmatic use"): `simulate` runs its
    // server; tests and benches build simulators through it.
    'src/simulator/index.ts!',
    'bench/**/*.ts',
    // Named in vitest.config.ts (globalSetup, setupFiles).
    'test/global-setup.ts',
    'test/unit-guard.ts',
  ],
  project: ['src/**/*.ts!', 'scripts/**/*.{ts,mjs}!', 'grafana/**/*.ts!', 'bench/**/*.ts', 'test/**/*.ts'],
  // Read as text by test/code-shape.test.ts, not imported.
  ignore: ['test/fixtures/code-shape-probe.ts'],
  ignoreExportsUsedInFile: production,
};

export default config;
