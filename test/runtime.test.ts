/**
 * The suite runs on a supported Node: 22 or 24 (package.json engines; the npm scripts use the
 * pinned Node 24 of the `node` devDependency, CI also runs the suite on Node 22). With
 * EXPECT_NODE_MAJOR set (`npm run test:node22` sets 22), the run must be on exactly that major,
 * so that a CI step meant for Node 22 cannot silently run on another Node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, nodeVersionProblem, SUPPORTED_NODE } from '../src/util/node-version.ts';

const major = Number(process.versions.node.split('.')[0]);

describe('runtime', () => {
  it('is a supported Node, the one the run asked for', () => {
    expect([22, 24]).toContain(major);
    const wanted = process.env.EXPECT_NODE_MAJOR;
    if (wanted) expect(major).toBe(Number(wanted));
  });

  it('is the pinned Node 24 when npm runs the scripts', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(pkg.engines.node).toBe(SUPPORTED_NODE);
    expect(isSupportedNode(process.version)).toBe(true);
    expect(pkg.devDependencies.node).toMatch(/^24\.\d+\.\d+$/);
    // npm puts node_modules/.bin (the pinned node) first on PATH for its scripts.
    if (process.env.npm_lifecycle_event === 'test' && !process.env.EXPECT_NODE_MAJOR)
      expect(process.versions.node).toBe(pkg.devDependencies.node);
  });
});

describe('the Node version check of the binary', () => {
  it('accepts 22.19 and later 22.x, 24.x and 26 or later', () => {
    for (const v of ['v22.19.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.1.0', 'v30.0.0'])
      expect(isSupportedNode(v), v).toBe(true);
  });

  it('refuses what undici 8 or the Prometheus client cannot run on, naming both versions', () => {
    // undici 8 needs 22.19; @prometheus-io/client declares ^22 || ^24 || >=26.
    for (const v of ['v20.20.2', 'v22.18.9', 'v23.11.0', 'v25.2.1', 'v18.0.0', 'nonsense']) {
      expect(isSupportedNode(v), v).toBe(false);
      const line = nodeVersionProblem(v) ?? '';
      expect(line).toContain(v);
      expect(line).toContain('22.19');
      expect(line.trim().split('\n')).toHaveLength(1);
    }
    expect(nodeVersionProblem('v24.21.0')).toBeUndefined();
  });
});
