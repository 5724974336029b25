import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/index.ts';
import { updateReadme } from '../../src/docs/readme.ts';

describe('generated documentation', () => {
  it('README reference sections match the code (run `npm run gen` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(updateReadme(readme), 'README.md is stale: run `npm run gen`').toBe(readme);
  });

  it('lists every collector family in the README', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const c of COLLECTORS) for (const f of c.families) expect(readme).toContain(`\`${f.name}\``);
  });

  it('replaces only between the markers and refuses a README without them', () => {
    const doc = 'intro\n<!-- BEGIN METRICS REFERENCE x -->\nold\n<!-- END METRICS REFERENCE -->\nouttro\n';
    expect(updateReadme(doc, { 'METRICS REFERENCE': 'new\n' })).toBe(
      'intro\n<!-- BEGIN METRICS REFERENCE x -->\nnew\n<!-- END METRICS REFERENCE -->\nouttro\n',
    );
    expect(() => updateReadme('nothing', { 'METRICS REFERENCE': 'x' })).toThrow(/no generated section/);
  });
});
