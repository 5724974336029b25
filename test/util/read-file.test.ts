import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DeadlineTimers,
  FileReadError,
  formatBytes,
  readRegularFile,
  readRegularFileSync,
} from '../../src/util/read-file.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'read-file-test-'));
  dirs.push(dir);
  return dir;
}

const LIMITS = { maxBytes: 64, timeoutMs: 1_000 };

/** Both readers, so that every refusal is checked for each. */
const READERS = [
  [
    'readRegularFile',
    (path: string, maxBytes = LIMITS.maxBytes) => readRegularFile(path, { ...LIMITS, maxBytes }),
  ],
  [
    'readRegularFileSync',
    async (path: string, maxBytes = LIMITS.maxBytes) => readRegularFileSync(path, { maxBytes }),
  ],
] as const;

async function refusal(read: Promise<string>): Promise<FileReadError> {
  const err = await read.then(
    () => new Error('read succeeded'),
    (e: unknown) => e,
  );
  if (!(err instanceof FileReadError)) throw err;
  return err;
}

describe.each(READERS)('%s', (_name, read) => {
  it('reads a regular file as text, up to and including the limit', async () => {
    const path = join(tempDir(), 'token');
    writeFileSync(path, 'x'.repeat(64));
    expect(await read(path)).toBe('x'.repeat(64));
  });

  it('refuses a directory, naming the path and the kind', async () => {
    const path = join(tempDir(), 'secrets');
    mkdirSync(path);
    const err = await refusal(read(path));
    expect(err.reason).toBe('not_regular');
    expect(err.message).toBe(`${path} is a directory, not a regular file`);
  });

  it('refuses a character device without reading it', async () => {
    // /dev/zero would never end; it must be refused before the first byte.
    for (const device of ['/dev/null', '/dev/zero']) {
      if (!existsSync(device) && process.env.CI !== 'true') continue;
      const err = await refusal(read(device));
      expect(err.message).toBe(`${device} is a character device, not a regular file`);
    }
  });

  it('refuses a file over the limit, naming the limit', async () => {
    const path = join(tempDir(), 'big');
    writeFileSync(path, 'x'.repeat(2048 + 1));
    const err = await refusal(read(path, 2048));
    expect(err.reason).toBe('too_large');
    expect(err.problem).toBe('is larger than the limit of 2 KiB');
  });

  it('passes fs errors through with their code', async () => {
    const err = await read(join(tempDir(), 'missing')).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('readRegularFile deadline', () => {
  it('gives up when the deadline passes first', async () => {
    const path = join(tempDir(), 'token');
    writeFileSync(path, 'secret');
    // The deadline fires before the read can come back: the read is abandoned, not awaited.
    const timers: DeadlineTimers = {
      setTimeout: (fn) => {
        fn();
        return 0;
      },
      clearTimeout: () => {},
    };
    const err = await refusal(readRegularFile(path, { ...LIMITS, timers }));
    expect(err.reason).toBe('timeout');
    expect(err.message).toBe(`${path} did not answer within 1000 ms (a hung mount?)`);
  });

  it('clears its timer when the read ends in time', async () => {
    const path = join(tempDir(), 'token');
    writeFileSync(path, 'secret');
    const armed = new Set<unknown>();
    let seq = 0;
    const timers: DeadlineTimers = {
      setTimeout: () => {
        armed.add(++seq);
        return seq;
      },
      clearTimeout: (h) => void armed.delete(h),
    };
    expect(await readRegularFile(path, { ...LIMITS, timers })).toBe('secret');
    expect(armed.size).toBe(0);
  });
});

describe('formatBytes', () => {
  it('uses the largest whole binary unit', () => {
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(1000)).toBe('1000 bytes');
  });
});
