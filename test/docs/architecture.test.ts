/**
 * docs/architecture.md stays true: every path it names under src/, test/, scripts/, bench/ and
 * the other top-level folders exists, and every folder of src/ is in its table.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DOC = readFileSync('docs/architecture.md', 'utf8');

/** Paths in backticks that start with a top-level folder of the repository. */
function namedPaths(text: string): string[] {
  const roots = ['src/', 'test/', 'scripts/', 'bench/', 'grafana/', 'deploy/', 'prometheus/', 'docs/'];
  return [...text.matchAll(/`([A-Za-z0-9_./-]+)`/g)]
    .map((m) => m[1]!)
    .filter((p) => roots.some((r) => p.startsWith(r)));
}

describe('docs/architecture.md', () => {
  it('names only paths that exist', () => {
    const paths = namedPaths(DOC);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !existsSync(p))).toEqual([]);
  });

  it('has every folder of src/ in its table', () => {
    for (const entry of readdirSync('src')) {
      const named = entry.endsWith('.ts') ? `\`src/${entry}\`` : `\`src/${entry}/\``;
      expect(DOC, entry).toContain(named);
    }
  });

  it('would catch a path that does not exist', () => {
    expect(namedPaths('see `src/nowhere/plan.ts` and `README.md`')).toEqual(['src/nowhere/plan.ts']);
  });
});
