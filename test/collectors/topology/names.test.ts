/**
 * Issue 33, defect 11: sites, lines and groups that share a name get suffixes that are unique by
 * construction, whatever their ids end in and whatever literal names their siblings carry.
 */
import { describe, expect, it } from 'vitest';
import type { Random } from '../../../bench/shared/random.ts';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';
import { buildTopology } from '../../../src/collectors/topology/build.ts';
import type { Entity, NameFilter, Topology } from '../../../src/model/topology.ts';
import type { Line, LineElement, Site } from '../../../src/upstream/types.ts';

const none: NameFilter = { sites: [], lines: [], stations: [] };
const build = (sites: Site[]): Topology =>
  buildTopology(sites, { stationIds: [], include: none, exclude: none });

const station = (id: string, name = 'S'): LineElement => ({ kind: 'station', id, name, description: '' });
const line = (id: string, name: string, elements: LineElement[]): Line => ({
  id,
  name,
  description: '',
  elements,
});
const site = (id: string, name: string, lines: Line[]): Site => ({ id, name, description: '', lines });

/** Every entity's label text per level, for the uniqueness checks. */
function labelTexts(t: Topology): Record<string, string[]> {
  const text = (es: readonly Entity[]) => es.map((e) => e.labels.text);
  return { sites: text(t.sites), lines: text(t.lines), groups: text(t.groups), stations: text(t.stations) };
}

function expectUnique(t: Topology): void {
  for (const [level, texts] of Object.entries(labelTexts(t))) {
    const dup = texts.filter((x, i) => texts.indexOf(x) !== i);
    expect(dup, `duplicate ${level} label sets`).toEqual([]);
  }
}

describe('name clash suffixes', () => {
  it('keep the last 6 id characters when that is enough', () => {
    const t = build([
      site('a00000000000000000000001', 'Plant', [line('l1', 'L', [station('s1')])]),
      site('a00000000000000000000002', 'Plant', [line('l2', 'L', [station('s2')])]),
    ]);
    expect(t.sites.map((s) => s.labels.text)).toEqual(['site="Plant (000001)"', 'site="Plant (000002)"']);
  });

  it('fall back to the whole id when two ids end alike', () => {
    const t = build([
      site('aaaa111111', 'Plant', [line('l1', 'L', [station('s1')])]),
      site('bbbb111111', 'Plant', [line('l2', 'L', [station('s2')])]),
    ]);
    expect(t.sites.map((s) => s.labels.text)).toEqual(['site="Plant (111111)"', 'site="Plant (bbbb111111)"']);
    expectUnique(t);
  });

  it('leave a literal "Plant (111111)" its name and give the clashing one another', () => {
    const t = build([
      site('aaaa111111', 'Plant', [line('l1', 'L', [station('s1')])]),
      site('bbbb222222', 'Plant', [line('l2', 'L', [station('s2')])]),
      site('cccc333333', 'Plant (111111)', [line('l3', 'L', [station('s3')])]),
    ]);
    expect(t.sites.map((s) => s.labels.text)).toEqual([
      'site="Plant (aaaa111111)"',
      'site="Plant (222222)"',
      'site="Plant (111111)"',
    ]);
    expect(t.renamed).toBe(2);
  });

  it('stay unique with equal ids and every literal form taken', () => {
    const lines = (n: number) => [line(`l${n}`, 'L', [station(`s${n}`)])];
    const t = build([
      site('111111', 'Plant', lines(1)),
      site('111111', 'Plant', lines(2)),
      site('x', 'Plant (111111)', lines(3)),
      site('y', 'Plant (111111 2)', lines(4)),
    ]);
    expectUnique(t);
    expect(t.sites.map((s) => s.labels.text)).toEqual([
      'site="Plant (111111 3)"',
      'site="Plant (111111 4)"',
      'site="Plant (111111)"',
      'site="Plant (111111 2)"',
    ]);
  });
});

/** An id from a small alphabet, so that ids clash in their last characters (and whole) often. */
function idOf(r: Random): string {
  const tails = ['111111', '222222', 'abcdef'];
  const heads = ['', 'a', 'b', 'aa', '0000'];
  return heads[Math.floor(r.uniform() * heads.length)]! + tails[Math.floor(r.uniform() * tails.length)]!;
}

/** A name that clashes: a few bases, and the literal forms a suffix would produce from the ids. */
function nameOf(r: Random, ids: readonly string[]): string {
  const base = ['Plant', 'Plant', 'Line', ''][Math.floor(r.uniform() * 4)]!;
  const id = ids[Math.floor(r.uniform() * ids.length)] ?? '111111';
  const forms = [base, base, `${base} (${id.slice(-6)})`, `${base} (${id})`, `${base} (${id} 2)`];
  return forms[Math.floor(r.uniform() * forms.length)]!;
}

/** Siblings with clashing names and ids; each gets `make(id, name)`. */
function siblings<T>(r: Random, max: number, make: (id: string, name: string) => T): T[] {
  const n = 1 + Math.floor(r.uniform() * max);
  const ids = Array.from({ length: n }, () => idOf(r));
  return ids.map((id) => make(id, nameOf(r, ids)));
}

let stationSeq = 0;
function plant(r: Random): Site[] {
  return siblings(r, 6, (id, name) =>
    site(
      id,
      name,
      siblings(r, 4, (lid, lname) =>
        line(
          lid,
          lname,
          siblings(r, 4, (gid, gname) => ({
            kind: 'group' as const,
            id: gid,
            name: gname,
            description: '',
            stations: [{ id: `st${stationSeq++}`, name: 'S', description: '' }],
          })),
        ),
      ),
    ),
  );
}

/** The same siblings in another order, at every level. */
function reversed(sites: Site[]): Site[] {
  return [...sites].reverse().map((s) => ({
    ...s,
    lines: [...s.lines].reverse().map((l) => ({ ...l, elements: [...l.elements].reverse() })),
  }));
}

describe('name clash suffixes, property', () => {
  it('give unique label sets for 300 seeded plants of clashing names and ids, stable across polls', () => {
    const r = splitmix64Fast(0x5eed_0033);
    for (let trial = 0; trial < 300; trial++) {
      const sites = plant(r);
      const t = build(sites);
      expectUnique(t);
      // Nothing changed: the next poll's labels are the same.
      expect(labelTexts(build(sites))).toEqual(labelTexts(t));
      // The upstream listing siblings in another order does not move names between them.
      const byId = (x: Topology) => new Map(x.stations.map((s) => [s.id, s.labels.text]));
      const ids = (xs: readonly { id: string }[]) => new Set(xs.map((x) => x.id)).size === xs.length;
      const distinctIds =
        ids(sites) && sites.every((s) => ids(s.lines) && s.lines.every((l) => ids(l.elements)));
      if (distinctIds) expect(byId(build(reversed(sites)))).toEqual(byId(t));
    }
  });
});
