import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configReferenceRows } from '../../src/config/reference.ts';

const examplePath = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

describe('config.example.yaml', () => {
  it('loads with the variable it uses', async () => {
    const config = await loadConfig(examplePath, { STATION_TOKEN: 'example-token' });
    expect(config.upstream.token).toEqual({ kind: 'inline', value: 'example-token' });
    expect(config.windows.map((w) => w.name)).toEqual(['1h', '24h', '8h', 'shift', 'today']);
  });

  it('mentions every key of the schema', () => {
    const text = readFileSync(examplePath, 'utf8');
    const missing = configReferenceRows()
      .map((row) => row.path.split(/\.|\[\]\./).at(-1) ?? '')
      .filter((key) => !new RegExp(`\\b${key}\\b\\s*:`).test(text));
    expect(missing).toEqual([]);
  });
});
