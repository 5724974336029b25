/**
 * The suite runs on a supported Node: 22 or 24 (package.json engines; the npm scripts use the
 * pinned Node 24 of the `node` devDependency, CI also runs the suite on Node 22). With
 * EXPECT_NODE_MAJOR set (`npm run test:node22` sets 22), the run must be on exactly that major,
 * so that a CI step meant for Node 22 cannot silently run on another Node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

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
    expect(pkg.engines.node).toBe('>=22');
    expect(pkg.devDependencies.node).toMatch(/^24\.\d+\.\d+$/);
    // npm puts node_modules/.bin (the pinned node) first on PATH for its scripts.
    if (process.env.npm_lifecycle_event === 'test' && !process.env.EXPECT_NODE_MAJOR)
      expect(process.versions.node).toBe(pkg.devDependencies.node);
  });
});
