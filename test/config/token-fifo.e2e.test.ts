/**
 * A token file replaced by a FIFO (issue 33, defect 5): it used to block every libuv thread in
 * open(), so that no request went out and nothing was logged. Node cannot make a FIFO itself,
 * so this runs mkfifo as a child process and is an e2e test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { TokenFile } from '../../src/config/token.ts';
import { startHarness } from '../helpers/harness.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'token-fifo-'));
  dirs.push(dir);
  return dir;
}

/** Replaces whatever is at `path` with a FIFO nobody writes to. */
function makeFifo(path: string): void {
  rmSync(path, { force: true });
  execFileSync('mkfifo', [path]);
}

/** Replaces whatever is at `path` with a regular file holding `text`. */
function makeFile(path: string, text: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, text);
}

describe('a token file replaced by a FIFO', () => {
  it('keeps the last token, reports the error once, and recovers when a file is put back', async () => {
    const path = join(tempDir(), 'token');
    makeFile(path, 'first-token\n');
    const reasons: Array<string | undefined> = [];
    const provider = new TokenFile(path, { onFileError: (r) => reasons.push(r) });
    expect(await provider.get()).toBe('first-token');
    makeFifo(path);
    for (let i = 0; i < 8; i++) expect(await provider.get()).toBe('first-token');
    expect(await provider.renew()).toBe('first-token');
    const reason = `cannot read token file ${path}: is a FIFO (named pipe), not a regular file`;
    expect(provider.fileError).toBe(reason);
    makeFile(path, 'second-token\n');
    expect(await provider.get()).toBe('second-token');
    expect(provider.fileError).toBeUndefined();
    expect(reasons).toEqual([reason, undefined]);
  });

  it('is a config error at load time, naming the path and the kind', async () => {
    const dir = tempDir();
    makeFifo(join(dir, 'token'));
    const config = join(dir, 'exporter.yaml');
    writeFileSync(config, 'upstream:\n  base_url: http://127.0.0.1:9\n  token_file: token\n');
    const err = await loadConfig(config, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      `upstream.token_file: ${join(dir, 'token')} is a FIFO (named pipe), not a regular file`,
    ]);
    // The config file itself as a FIFO: refused, not waited on.
    makeFifo(config);
    const self = await loadConfig(config, {}).catch((e: unknown) => e);
    expect((self as ConfigError).issues).toEqual([
      'cannot read config file: is a FIFO (named pipe), not a regular file',
    ]);
  });

  it('lets a running exporter keep polling with the last token, with token_file_error 1 until the file is back', async () => {
    const path = join(tempDir(), 'token');
    makeFile(path, 'demo-token\n');
    const h = await startHarness({
      sim: { scale: { sites: 1, linesPerSite: 1, stationsPerLine: 2 } },
      upstream: { token: undefined, token_file: path },
      config: { windows: ['1h'] },
    });
    try {
      const errorGauge = async () =>
        /station_exporter_token_file_error (\d)/.exec(await h.exporter.registry.metrics())?.[1];
      expect(await h.exporter.scheduler.pollOnce()).toBe(true);
      makeFifo(path);
      const before = h.sim.sim.requests.length;
      expect(await h.exporter.scheduler.pollOnce()).toBe(true);
      expect(h.sim.sim.requests.length).toBeGreaterThan(before);
      expect(await errorGauge()).toBe('1');
      makeFile(path, 'demo-token\n');
      expect(await h.exporter.scheduler.pollOnce()).toBe(true);
      expect(await errorGauge()).toBe('0');
    } finally {
      await h.close();
    }
  });
});
