/**
 * The committed dashboards are what the code generates, and they follow the house rules beyond
 * the linter's (test/grafana/lint.e2e.test.ts): a grid without overlaps, a unit on every table
 * column, ratios shown as percentages and never averaged, resolvable variables, and links to
 * dashboards that exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderDashboards } from '../../grafana/src/index.ts';
import {
  BUILTIN,
  type DashboardJson,
  generatedDashboards,
  linkUrls,
  queryPanels,
  variableRefs,
} from './inspect.ts';

const DIR = 'grafana/dashboards';
const all = generatedDashboards().map((d) => d.dashboard);
const byUid = new Map(all.map((d) => [d.uid, d]));
const cases = all.map((d) => [d.title, d] as const);

function overlaps(a: { x: number; y: number; w: number; h: number }, b: typeof a): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

describe('generated dashboards', () => {
  it('are committed as generated (run `npm run gen` or `npx tsx grafana/build.ts` when this fails)', () => {
    const rendered = renderDashboards();
    const committed = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    expect(committed.sort(), 'stale dashboard files: run npm run gen').toEqual([...rendered.keys()].sort());
    for (const [file, text] of rendered) {
      expect(readFileSync(path.join(DIR, file), 'utf8'), `${file} is stale: run npm run gen`).toBe(text);
    }
  });

  it('are provisioned from a file provider next to a Prometheus data source', () => {
    const ds = parse(readFileSync('grafana/provisioning/datasources/station-exporter.yml', 'utf8'));
    expect(ds.datasources[0]).toMatchObject({ type: 'prometheus', access: 'proxy' });
    const provider = parse(readFileSync('grafana/provisioning/dashboards/station-exporter.yml', 'utf8'));
    expect(provider.providers[0]).toMatchObject({ type: 'file', options: { path: expect.any(String) } });
  });

  it('have unique titles', () => {
    expect(new Set(all.map((d) => d.title)).size).toBe(all.length);
  });
});

describe.each(cases)('%s', (_title, d: DashboardJson) => {
  const panels = queryPanels(d);
  const defined = d.templating.list.map((v) => v.name);

  it('starts with the datasource variable', () => {
    expect(d.templating.list[0]).toMatchObject({ name: 'datasource', type: 'datasource' });
  });

  it('places every panel on the 24-column grid without overlaps', () => {
    const placed: Array<{ title: string; x: number; y: number; w: number; h: number }> = [];
    for (const p of d.panels) {
      const { x, y, w, h } = p.gridPos;
      expect(w > 0 && h > 0 && x >= 0 && y >= 0 && x + w <= 24, p.title).toBe(true);
      for (const other of placed)
        expect(overlaps(p.gridPos, other), `${p.title} / ${other.title}`).toBe(false);
      placed.push({ title: p.title, ...p.gridPos });
    }
    expect(panels.every((p) => p.targets.length > 0)).toBe(true);
  });

  it('gives every value column of a table its own unit', () => {
    for (const p of panels.filter((x) => x.type === 'table')) {
      const organize = p.transformations?.find((t) => t.id === 'organize');
      const renames = (organize?.options.renameByName ?? {}) as Record<string, string>;
      const kept = (p.transformations?.find((t) => t.id === 'filterFieldsByName')?.options.include ?? {}) as {
        names?: string[];
      };
      for (const field of kept.names?.filter((n) => n.startsWith('Value')) ?? []) {
        const column = renames[field];
        const o = p.fieldConfig?.overrides.find((x) => x.matcher.options === column);
        expect(o?.properties.find((x) => x.id === 'unit')?.value, `${p.title} / ${column}`).toMatch(/^\w+$/);
      }
    }
  });

  it('shows ratios as percentunit and never averages them', () => {
    for (const p of panels) {
      const exprs = p.targets.map((t) => t.expr);
      for (const e of exprs) expect(e, p.title).not.toMatch(/\bavg(_over_time)?\b[\s\S]*_ratio\b/);
      const onlyRatios = exprs.every((e) => /_(ratio)\{/.test(e) && !/_units\{/.test(e));
      if (onlyRatios && p.type !== 'table') expect(p.fieldConfig?.defaults.unit, p.title).toBe('percentunit');
    }
  });

  it('references only defined variables, each after the ones it depends on', () => {
    const texts = [
      ...panels.flatMap((p) => [
        p.title,
        p.description ?? '',
        ...p.targets.flatMap((t) => [t.expr, t.legendFormat ?? '']),
      ]),
      ...linkUrls(d),
    ];
    for (const text of texts) {
      for (const name of variableRefs(text)) {
        expect(defined.includes(name) || BUILTIN.has(name), `$${name} in ${text}`).toBe(true);
      }
    }
    d.templating.list.forEach((v, i) => {
      if (v.type !== 'query') return;
      for (const name of variableRefs(v.query ?? '')) {
        expect(defined.slice(0, i), `${v.name} uses $${name}`).toContain(name);
      }
    });
  });

  it('links only to dashboards that exist, with variables they define', () => {
    for (const url of linkUrls(d)) {
      const uid = /^\/d\/([\w-]+)/.exec(url)?.[1];
      expect(uid && byUid.has(uid), url).toBe(true);
      const target = byUid.get(uid!)!;
      const targetVars = target.templating.list.map((v) => v.name);
      for (const m of url.matchAll(/var-(\w+)=/g)) expect(targetVars, url).toContain(m[1]);
      for (const m of url.matchAll(/\$\{(\w+):queryparam\}/g)) expect(targetVars, url).toContain(m[1]);
    }
    expect(d.links.length).toBeGreaterThan(0);
  });
});
