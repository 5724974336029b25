import { mkdirSync, mkdtempSync, rmSync, type Stats, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InlineToken,
  TOKEN_FILE_MAX_BYTES,
  TOKEN_FILE_TIMEOUT_MS,
  TokenFile,
  tokenFileModeWarning,
} from '../../src/config/token.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'token-test-'));
  dirs.push(dir);
  const path = join(dir, 'token');
  writeFileSync(path, content);
  return path;
}

/** Sets the file's modification time to `seconds` after the epoch, so that a test does not depend on timer granularity. */
function touch(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

/** An `open` that counts its calls. */
function countingOpen() {
  const counter = {
    opens: 0,
    open: (p: string, flags: number) => {
      counter.opens++;
      return open(p, flags);
    },
  };
  return counter;
}

describe('InlineToken and TokenFile', () => {
  it('returns an inline token as is', async () => {
    await expect(new InlineToken('abc').get()).resolves.toBe('abc');
  });

  it('reads a token file, trimming whitespace', async () => {
    const path = tempFile('  secret-1\n');
    await expect(new TokenFile(path).get()).resolves.toBe('secret-1');
  });

  it('re-reads the real file after it changes', async () => {
    const path = tempFile('secret-1\n');
    const provider = new TokenFile(path);
    expect(await provider.get()).toBe('secret-1');
    writeFileSync(path, 'secret-2-rotated\n');
    // Same size as before would rely on mtime alone; set it explicitly so the test does not depend on timer granularity.
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    expect(await provider.get()).toBe('secret-2-rotated');
  });

  it('reads only when mtime or size changed', async () => {
    const path = tempFile('one');
    touch(path, 1000);
    const counter = countingOpen();
    const provider = new TokenFile(path, { open: counter.open });
    expect(await provider.get()).toBe('one');
    expect(await provider.get()).toBe('one');
    expect(counter.opens).toBe(1);
    writeFileSync(path, 'two');
    touch(path, 2000);
    expect(await provider.get()).toBe('two');
    writeFileSync(path, 'three-longer');
    touch(path, 2000);
    expect(await provider.get()).toBe('three-longer');
    expect(counter.opens).toBe(3);
  });

  it('names the path but not the content when the file is empty', async () => {
    const path = tempFile(' \n\t\n');
    await expect(new TokenFile(path).get()).rejects.toThrow(`token file ${path}: is empty`);
  });

  it('names the path when the file is missing', async () => {
    const path = join(tempFile('x'), '..', 'missing');
    await expect(new TokenFile(path).get()).rejects.toThrow(`cannot read token file ${path}: ENOENT`);
  });

  it('never puts the content of the file into an error', async () => {
    const provider = new TokenFile(tempFile('super-secret-value'), {
      open: async () => {
        throw new Error('could not decode super-secret-value');
      },
    });
    const error = await provider.get().then(
      () => new Error('resolved'),
      (err: unknown) => err as Error,
    );
    expect(error.message).toContain('cannot read token file');
    expect(error.message).not.toContain('super-secret-value');
  });

  it('keeps the last token when the file is deleted, and reports the file error until it is back', async () => {
    const path = tempFile('one');
    touch(path, 1000);
    const errors: Array<string | undefined> = [];
    const provider = new TokenFile(path, { onFileError: (reason) => errors.push(reason) });
    expect(await provider.get()).toBe('one');
    rmSync(path);
    expect(await provider.get()).toBe('one');
    expect(provider.fileError).toBe(`cannot read token file ${path}: ENOENT`);
    writeFileSync(path, 'two');
    touch(path, 2000);
    expect(await provider.get()).toBe('two');
    expect(provider.fileError).toBeUndefined();
    expect(errors).toEqual([`cannot read token file ${path}: ENOENT`, undefined]);
  });

  it('fails when the very first read finds no file, and rejects a token with inner whitespace', async () => {
    const path = tempFile('abc def\n');
    const provider = new TokenFile(path);
    await expect(provider.get()).rejects.toThrow(
      `token file ${path}: the token contains whitespace at position 4; a token is one word`,
    );
    await expect(provider.get()).rejects.not.toThrow('abc');
  });

  it('renew reads the file again even when it looks unchanged', async () => {
    const path = tempFile('one');
    touch(path, 1000);
    const provider = new TokenFile(path);
    expect(await provider.get()).toBe('one');
    writeFileSync(path, 'two');
    touch(path, 1000);
    // Same size and mtime: get() trusts its cache, renew() does not.
    expect(await provider.get()).toBe('one');
    expect(await provider.renew()).toBe('two');
  });

  it('keeps the last token when a re-read finds the file empty, and takes the next good one', async () => {
    const path = tempFile('secret-1\n');
    const reasons: Array<string | undefined> = [];
    const provider = new TokenFile(path, { onFileError: (r) => reasons.push(r) });
    expect(await provider.get()).toBe('secret-1');
    writeFileSync(path, '\n');
    expect(await provider.get()).toBe('secret-1');
    expect(await provider.renew()).toBe('secret-1');
    expect(provider.fileError).toBe(`token file ${path}: is empty`);
    writeFileSync(path, 'secret-2\n');
    expect(await provider.get()).toBe('secret-2');
    expect(reasons).toEqual([`token file ${path}: is empty`, undefined]);
  });

  it('keeps the last token while a directory or an oversized file stands in for the token file', async () => {
    const path = tempFile('secret-1\n');
    const provider = new TokenFile(path);
    expect(await provider.get()).toBe('secret-1');
    rmSync(path);
    mkdirSync(path);
    expect(await provider.get()).toBe('secret-1');
    expect(provider.fileError).toBe(`cannot read token file ${path}: is a directory, not a regular file`);
    rmSync(path, { recursive: true });
    writeFileSync(path, 'x'.repeat(TOKEN_FILE_MAX_BYTES + 1));
    expect(await provider.get()).toBe('secret-1');
    expect(provider.fileError).toBe(`cannot read token file ${path}: is larger than the limit of 64 KiB`);
    writeFileSync(path, 'secret-2\n');
    expect(await provider.get()).toBe('secret-2');
    expect(provider.fileError).toBeUndefined();
  });

  it('gives up on a read that passes its deadline, naming the file', async () => {
    const path = tempFile('secret-1\n');
    const fireAtOnce = {
      setTimeout: (fn: () => void) => {
        fn();
        return 0;
      },
      clearTimeout: () => {},
    };
    const provider = new TokenFile(path, { timers: fireAtOnce });
    await expect(provider.get()).rejects.toThrow(
      `cannot read token file ${path}: did not answer within ${TOKEN_FILE_TIMEOUT_MS} ms (a hung mount?)`,
    );
  });

  it('does not stat the file again while a stat that passed its deadline hangs (a hung mount)', async () => {
    const path = tempFile('secret-1\n');
    const deadlines: Array<() => void> = [];
    const timers = { setTimeout: (fn: () => void) => deadlines.push(fn), clearTimeout: () => {} };
    let stats = 0;
    let release = () => {};
    const stat = (p: string) => {
      stats++;
      if (stats > 1) return Promise.resolve(statSync(p));
      return new Promise<Stats>((resolve) => {
        release = () => resolve(statSync(p));
      });
    };
    const provider = new TokenFile(path, { timers, stat });
    const first = provider.get();
    deadlines.shift()?.();
    await expect(first).rejects.toThrow(`did not answer within ${TOKEN_FILE_TIMEOUT_MS} ms`);
    for (let i = 0; i < 5; i++)
      await expect(provider.get()).rejects.toThrow('is not read again until an earlier read');
    expect(stats).toBe(1);
    release();
    await new Promise((r) => setImmediate(r));
    expect(await provider.get()).toBe('secret-1');
  });

  it('does not open the file again while an open that passed its deadline hangs', async () => {
    const path = tempFile('secret-1\n');
    const deadlines: Array<() => void> = [];
    const timers = { setTimeout: (fn: () => void) => deadlines.push(fn), clearTimeout: () => {} };
    let opens = 0;
    const hanging = (p: string, flags: number) => {
      opens++;
      return opens > 1 ? open(p, flags) : new Promise<never>(() => {});
    };
    const provider = new TokenFile(path, { timers, open: hanging });
    const first = provider.get();
    // The stat's deadline is cleared when it answers; the open's is the one that passes.
    while (opens === 0) await new Promise((r) => setImmediate(r));
    deadlines.pop()?.();
    await expect(first).rejects.toThrow(`did not answer within ${TOKEN_FILE_TIMEOUT_MS} ms`);
    for (let i = 0; i < 5; i++)
      await expect(provider.get()).rejects.toThrow('is not read again until an earlier read');
    expect(opens).toBe(1);
  });

  it('warns about group- or world-readable token files only', () => {
    expect(tokenFileModeWarning('/t', 0o100600)).toBeUndefined();
    expect(tokenFileModeWarning('/t', 0o100640)).toContain('mode 640');
    expect(tokenFileModeWarning('/t', 0o100604)).toContain('readable by group or others');
  });
});
