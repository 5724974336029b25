/**
 * Every relative link of the README and of docs/*.md resolves: the file exists, and an anchor
 * names a heading of the Markdown file it points into (GitHub's slugs). Links inside code blocks
 * and to other sites are not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const DOCS = [
  'README.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].filter((f) => existsSync(f));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(file: string): string[] {
  const text = prose(readFileSync(file, 'utf8')).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^(https?:|mailto:)/.test(t));
}

describe('documentation links', () => {
  it('finds the documents and their links', () => {
    expect(DOCS).toContain('README.md');
    expect(DOCS.length).toBeGreaterThan(8);
    expect(links('README.md').length).toBeGreaterThan(10);
    expect(slug('How it works, and why it caches')).toBe('how-it-works-and-why-it-caches');
  });

  it.each(DOCS)('every relative link of %s resolves', (file) => {
    const broken: string[] = [];
    for (const link of links(file)) {
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
      if (!existsSync(target)) {
        broken.push(`${link}: no ${target}`);
        continue;
      }
      if (anchor && target.endsWith('.md') && statSync(target).isFile() && !anchors(target).has(anchor))
        broken.push(`${link}: no heading #${anchor} in ${target}`);
    }
    expect(broken).toEqual([]);
  });
});
