/**
 * The layers of src/ (its top-level folders and files) and their order: a module imports only
 * from its own layer or from layers below it. docs/architecture.md describes the same order; a
 * new folder must be placed here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Layers from the bottom up; a layer may import the layers before it. */
const ORDER = [
  ['util', 'version.ts'],
  ['time', 'simulator'],
  ['upstream', 'spc'],
  ['config', 'records'],
  ['exposition'],
  ['model'],
  ['sharding'],
  ['collectors'],
  ['planning'],
  ['scheduler'],
  ['server'],
  ['app'],
  ['reference', 'cli.ts'],
];
const rank = new Map(ORDER.flatMap((layers, i) => layers.map((r) => [r, i] as const)));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The layer of a path under src/: its first segment. */
const layerOf = (path: string) => relative('src', path).split('/')[0]!;

/** Every relative import of every module under src/, as [from layer, to layer, file, specifier]. */
function imports(): Array<[string, string, string, string]> {
  const out: Array<[string, string, string, string]> = [];
  for (const file of files('src')) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = normalize(join(dirname(file), m[1]!));
      out.push([layerOf(file), layerOf(target), file, m[1]!]);
    }
  }
  return out;
}

describe('layers', () => {
  it('places every folder of src/ in a layer', () => {
    const folders = readdirSync('src');
    expect(folders.filter((r) => !rank.has(r))).toEqual([]);
  });

  it('imports only from the same layer or layers below', () => {
    const all = imports();
    expect(all.length).toBeGreaterThan(300);
    const upward = all
      .filter(([from, to]) => from !== to && (rank.get(to) ?? -1) >= (rank.get(from) ?? -1))
      .map(([from, to, file, spec]) => `${file}: ${from} -> ${to} (${spec})`);
    expect(upward).toEqual([]);
  });

  it('keeps collectors out of the scheduler and the planner', () => {
    const bad = imports().filter(
      ([from, to]) => from === 'collectors' && (to === 'scheduler' || to === 'planning'),
    );
    expect(bad).toEqual([]);
  });
});
