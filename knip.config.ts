/**
 * Unused-export check (`npm run lint:exports`, part of `npm test`), run in two passes:
 * - `knip`: every export of the project is imported by another file (tests count). An export used
 *   only in its own file is un-exported.
 * - `knip --production`: every export of production code (src/, scripts/, grafana/) is used by
 *   production code, in its file or elsewhere; an export that only tests or benches use is code
 *   that production does not run ("tests use what production uses").
 */
import type { KnipConfig } from 'knip';

const production = process.argv.includes('--production');

type Left = Record<string, Array<'exports' | 'types' | 'files'>>;

/**
 * Findings left, per pass, to the changes that were editing these files when this check was added
 * (issue 32: the SPC engine, the control charts, the units collector, the upstream client) and
 * the test-only code still to be moved out of src/. A shrinking list: remove an entry when its
 * file is clean; knip names an entry that is no longer needed ("Configuration hints").
 */
const LEFT: { all: Left; production: Left } = {
  all: {},
  production: {
    // Used by tests only (production does not run them): move to test/ or make tests use production's.
    'src/collectors/measurements/control-families.ts': ['exports'],
    'src/exposition/render.ts': ['exports'],
    'src/spc/autocorrelation.ts': ['exports'],
    'src/spc/cusum.ts': ['exports'],
    'src/spc/ewma.ts': ['exports'],
    'src/spc/limits.ts': ['exports'],
    'src/spc/rules.ts': ['exports'],
  },
};

const config: KnipConfig = {
  entry: [
    // The CLI, and the two modules bin/station-exporter.js loads from dist/ before it.
    'src/cli.ts!',
    'src/util/node-version.ts!',
    'src/util/heap-ceiling.ts!',
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
  ignoreIssues: production ? LEFT.production : LEFT.all,
};

export default config;
