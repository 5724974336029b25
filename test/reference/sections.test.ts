import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/index.ts';
import { METRICS_DOC, updateSections } from '../../src/reference/sections.ts';

describe('generated documentation', () => {
  it('the metrics reference matches the code (run `npm run gen` when this fails)', () => {
    const doc = readFileSync(METRICS_DOC, 'utf8');
    expect(updateSections(doc), `${METRICS_DOC} is stale: run \`npm run gen\``).toBe(doc);
  });

  it('lists every collector family in the metrics reference', () => {
    const readme = readFileSync(METRICS_DOC, 'utf8');
    for (const c of COLLECTORS) for (const f of c.families) expect(readme).toContain(`\`${f.name}\``);
  });

  it('replaces only between the markers and refuses a README without them', () => {
    const doc = 'intro\n<!-- BEGIN METRICS REFERENCE x -->\nold\n<!-- END METRICS REFERENCE -->\nouttro\n';
    expect(updateSections(doc, { 'METRICS REFERENCE': 'new\n' })).toBe(
      'intro\n<!-- BEGIN METRICS REFERENCE x -->\nnew\n<!-- END METRICS REFERENCE -->\nouttro\n',
    );
    expect(() => updateSections('nothing', { 'METRICS REFERENCE': 'x' })).toThrow(/no generated section/);
  });
});

describe('README and CHANGELOG', () => {
  it('keeps the README short: install, run, configure, links (at most 450 lines)', () => {
    const lines = readFileSync('README.md', 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(450);
  });

  it('has a CHANGELOG section for the current version', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const changelog = readFileSync('CHANGELOG.md', 'utf8');
    expect(changelog).toMatch(
      new RegExp(`^## \\[${version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'),
    );
  });
});
