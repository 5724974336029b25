// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references in config text, not templates.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertLoaded,
  CONFIG_MAX_ALIASES,
  CONFIG_MAX_BYTES,
  ConfigError,
  configFromObject,
  loadConfig,
  parseConfig,
} from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { ALIAS_BOMB_LINES } from '../helpers/yaml.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
  dirs.push(dir);
  return dir;
}

async function issuesOf(run: () => unknown): Promise<string[]> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('resolves a relative token_file against the config file directory, not the working directory', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), 'secret\n');
    const path = join(dir, 'exporter.yaml');
    writeFileSync(path, 'upstream:\n  base_url: http://127.0.0.1:8080\n  token_file: token\n');
    const config = await loadConfig(path, {});
    expect(config.upstream.token).toEqual({ kind: 'file', path: join(dir, 'token') });
    expect(config.upstream.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('takes variables from the given environment', async () => {
    const dir = tempDir();
    const path = join(dir, 'exporter.yaml');
    writeFileSync(path, 'upstream:\n  base_url: ${URL}\n  token: ${T}\n');
    const config = await loadConfig(path, { URL: 'https://h.example/api', T: 'tok' });
    expect(config.upstream).toMatchObject({
      baseUrl: 'https://h.example/api',
      token: { kind: 'inline', value: 'tok' },
    });
  });

  it('refuses a config file over the size limit before parsing it', async () => {
    const path = join(tempDir(), 'huge.yaml');
    const base = 'upstream:\n  base_url: http://127.0.0.1:8080\n  token: t\n';
    writeFileSync(path, `${base}# ${'x'.repeat(CONFIG_MAX_BYTES)}\n`);
    expect(await issuesOf(() => loadConfig(path, {}))).toEqual([
      'cannot read config file: is larger than the limit of 1 MiB',
    ]);
    // The same text handed to parseConfig directly.
    expect(
      await issuesOf(() => parseConfig(`${base}# ${'x'.repeat(CONFIG_MAX_BYTES)}\n`, { baseDir: '/' })),
    ).toEqual(['the config is larger than the limit of 1 MiB']);
  });

  it('refuses a config directory or device as the config file', async () => {
    const dir = tempDir();
    expect(await issuesOf(() => loadConfig(dir, {}))).toEqual([
      'cannot read config file: is a directory, not a regular file',
    ]);
    expect(await issuesOf(() => loadConfig('/dev/null', {}))).toEqual([
      'cannot read config file: is a character device, not a regular file',
    ]);
  });

  it('refuses a token_file that is a device, naming the path and the kind', async () => {
    const path = join(tempDir(), 'exporter.yaml');
    writeFileSync(path, 'upstream:\n  base_url: http://127.0.0.1:8080\n  token_file: /dev/zero\n');
    expect(await issuesOf(() => loadConfig(path, {}))).toEqual([
      'upstream.token_file: /dev/zero is a character device, not a regular file',
    ]);
  });

  it('reports a missing config file', async () => {
    const path = join(tempDir(), 'missing.yaml');
    const error = await loadConfig(path, {}).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual(['cannot read config file: no such file']);
    expect((error as ConfigError).message).toContain(path);
  });
});

describe('parseConfig', () => {
  it('lists every issue in the error message, one per line', () => {
    const text = 'upstream:\n  base_url: nope\nlog:\n  level: loud\n';
    expect(() => parseConfig(text, { env: {}, baseDir: '/', source: 'x.yaml' })).toThrow(
      'invalid configuration in x.yaml:\n' +
        '  upstream.base_url: must be an http or https URL\n' +
        '  upstream: one of token or token_file is required\n' +
        '  log.level: must be one of debug, info, warn, error',
    );
  });

  it('never reveals a token, not even one in the wrong place', async () => {
    const secret = 'eyJhbGciOiJIUzI1NiJ9.secret';
    const text = [
      'upstream:',
      '  base_url: ${TOKEN}',
      '  token: ${TOKEN}',
      '  token_file: ${TOKEN}',
      '  tokne: ${TOKEN}',
      '  timeout: ["${TOKEN}"]',
      '  concurrency: ${TOKEN}',
      'windows: [{ name: w, type: today, timezone: UTC, junk: "${TOKEN}" }]',
      `log: { level: ${secret} }`,
      `bad: [${secret}`,
    ].join('\n');
    const yamlIssues = await issuesOf(() => parseConfig(text, { env: { TOKEN: secret }, baseDir: '/' }));
    const schemaIssues = await issuesOf(() =>
      parseConfig(text.split('\n').slice(0, -1).join('\n'), { env: { TOKEN: secret }, baseDir: '/' }),
    );
    expect(yamlIssues).not.toEqual([]);
    expect(schemaIssues).toHaveLength(7);
    for (const issue of [...yamlIssues, ...schemaIssues]) expect(issue).not.toContain('secret');
  });

  it('names a non-finite number as YAML spells it, not as a number of the wrong type', async () => {
    const config = (k: string) =>
      `upstream: { base_url: "http://a", token: t }\nmeasurements:\n  control:\n    cusum: { k: ${k} }\n`;
    for (const [k, shown] of [
      ['.nan', '.nan'],
      ['.inf', '.inf'],
      ['-.inf', '-.inf'],
    ] as const)
      expect(await issuesOf(() => parseConfig(config(k), { baseDir: '/' }))).toEqual([
        `measurements.control.cusum.k: must be a finite number, got ${shown}`,
      ]);
    expect(await issuesOf(() => parseConfig(config('"x"'), { baseDir: '/' }))).toEqual([
      'measurements.control.cusum.k: expected a number, got string',
    ]);
  });

  it('refuses a YAML alias bomb with a config error, not a crash', async () => {
    const text = `upstream: { base_url: "http://a", token: t }\nbomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}\n`;
    expect(await issuesOf(() => parseConfig(text, { baseDir: '/' }))).toEqual([
      `YAML aliases repeat too much: more than ${CONFIG_MAX_ALIASES} alias uses (an alias bomb?)`,
    ]);
  });

  it('refuses aliases that each repeat a large mapping past the expanded size limit', async () => {
    // Few aliases, under the count, but each repeats about 100 KiB: 9 MiB once copied.
    const big = `{ ${Array.from({ length: 1000 }, (_, i) => `k${i}: "${'v'.repeat(90)}"`).join(', ')} }`;
    const uses = Array.from({ length: 90 }, (_, i) => `  - *big # ${i}`).join('\n');
    const text = `upstream: { base_url: "http://a", token: t }\nbig: &big ${big}\nmany:\n${uses}\n`;
    expect(await issuesOf(() => parseConfig(text, { baseDir: '/' }))).toEqual([
      'YAML aliases expand the config beyond the limit of 4 MiB',
    ]);
  });

  it('accepts a YAML alias', () => {
    const text = 'upstream: { base_url: "http://a", token: t }\nunits: &u { interval: 2m }\nsummary: *u\n';
    const config = parseConfig(text, { env: {}, baseDir: '/' });
    expect(config.summary.intervalMs).toBe(120_000);
  });
});

describe('configFromObject', () => {
  it('validates an object like a file, including ${VAR} expansion', () => {
    const config = configFromObject(
      { upstream: { base_url: 'http://127.0.0.1:1', token: '${T}' }, windows: ['15m'] },
      { env: { T: 'x' }, baseDir: '/' },
    );
    expect(config.upstream.token).toEqual({ kind: 'inline', value: 'x' });
    expect(config.windows).toEqual([{ name: '15m', kind: 'rolling', durationMs: 900_000 }]);
  });

  it('rejects what is not a mapping, naming the source', () => {
    expect(() => configFromObject([1], { baseDir: '/', source: 'built-in defaults' })).toThrow(
      'invalid configuration in built-in defaults:\n  the configuration must be a mapping of keys to values',
    );
  });

  it('is the only way to get a Config, at run time too', () => {
    const loaded = configFromObject(
      { upstream: { base_url: 'http://127.0.0.1:1', token: 'x' }, windows: ['15m'] },
      { env: {}, baseDir: '/' },
    );
    expect(() => assertLoaded(loaded)).not.toThrow();
    // A copy (spread, JSON round trip, hand-built) carries the same data but skipped the loader.
    for (const copy of [{ ...loaded }, JSON.parse(JSON.stringify(loaded))] as Config[]) {
      expect(() => assertLoaded(copy)).toThrow('a Config must come from the config loader');
    }
  });
});
