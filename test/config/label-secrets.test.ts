/**
 * Issue 33, defect 2: a known secret in a config field that becomes a label is a config error,
 * named by its path, never printed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromObject } from '../../src/config/load.ts';

const TOKEN = 'Zq8tokenValue.With-Dots_42';
const env = { STATION_TOKEN: TOKEN };

function issuesOf(raw: Record<string, unknown>, upstream: Record<string, unknown> = {}): string[] {
  try {
    configFromObject(
      { upstream: { base_url: 'http://x', token: `\${STATION_TOKEN}`, ...upstream }, ...raw },
      { env, baseDir: '/' },
    );
  } catch (err) {
    if (err instanceof ConfigError) {
      expect(err.message).not.toContain(TOKEN);
      return err.issues;
    }
    throw err;
  }
  return [];
}

const SECRET = /contains a secret/;

describe('secrets in label fields', () => {
  it('refuses the token in a window name, from the environment, naming the path only', () => {
    const issues = issuesOf({ windows: [{ name: `w-\${STATION_TOKEN}`, type: 'rolling', duration: '1h' }] });
    expect(issues).toEqual([expect.stringMatching(/^windows\[0\]\.name: contains a secret/)]);
  });

  it('refuses it in every field that becomes a label', () => {
    const issues = issuesOf({
      windows: ['1h', { name: `x${TOKEN}`, type: 'today', timezone: 'UTC' }],
      measurements: { enabled: true, names: ['ok', `m_${TOKEN}`, { name: `Bearer abc.123-x` }] },
      planning: { refresh: { [TOKEN]: '10m' } },
    });
    const secret = issues.filter((i) => SECRET.test(i)).map((i) => i.split(':')[0]);
    expect(secret).toEqual([
      'windows[1].name',
      'measurements.names[1]',
      'measurements.names[2].name',
      'planning.refresh',
    ]);
  });

  it('knows the token read from token_file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'label-secrets-'));
    const file = path.join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const issues = issuesOf(
      { windows: [{ name: `w-${TOKEN}`, type: 'rolling', duration: '1h' }] },
      { token: undefined, token_file: file },
    );
    expect(issues).toEqual([expect.stringMatching(/^windows\[0\]\.name: contains a secret/)]);
  });

  it('accepts label fields without a secret', () => {
    expect(issuesOf({ windows: ['1h', { name: 'shift', type: 'today', timezone: 'UTC' }] })).toEqual([]);
  });
});
