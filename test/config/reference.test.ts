import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configReferenceRows, renderConfigReference } from '../../src/config/reference.ts';

const docsPath = fileURLToPath(new URL('../../docs/config.md', import.meta.url));

describe('config reference', () => {
  it('docs/config.md is up to date (run `npm run gen` after changing the schema)', () => {
    const committed = readFileSync(docsPath, 'utf8');
    if (committed !== renderConfigReference()) {
      expect.fail('docs/config.md is stale: run `npm run gen` (scripts/gen-docs.ts) and commit the result');
    }
  });

  it('documents every key of the example, with a description', () => {
    const paths = configReferenceRows().map((r) => r.path);
    for (const path of [
      'upstream.base_url',
      'upstream.token_file',
      'discovery.include.stations',
      'windows[].shift_starts',
      'measurements.names[].min_samples',
      'server.listen_address',
      'log.level',
    ]) {
      expect(paths).toContain(path);
    }
    for (const row of configReferenceRows()) expect(row.description.length, row.path).toBeGreaterThan(5);
  });

  it('shows types and defaults from the schema', () => {
    const rows = new Map(configReferenceRows().map((r) => [r.path, r]));
    expect(rows.get('upstream.base_url')).toMatchObject({ type: 'URL', default: 'required' });
    expect(rows.get('upstream.timeout')).toMatchObject({ type: 'duration (≥ 1s)', default: '`30s`' });
    expect(rows.get('upstream.concurrency')).toMatchObject({ type: 'integer (1-64)', default: '`4`' });
    expect(rows.get('windows')).toMatchObject({ default: '`[1h, 24h]`' });
    expect(rows.get('windows[].type')?.type).toBe('`rolling` | `shift` | `today` | `week`');
    expect(rows.get('windows[].week_starts')?.default).toBe('`monday`');
    expect(rows.get('server.listen_address')).toMatchObject({ default: '`:9732`' });
  });
});
