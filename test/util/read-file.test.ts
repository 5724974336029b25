import { existsSync, mkdirSync, mkdtempSync, promises, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DeadlineTimers,
  FileReadError,
  formatBytes,
  type OpenFile,
  RegularFileReader,
  readRegularFile,
  readRegularFileSync,
} from '../../src/util/read-file.ts';
import { manualTimers } from '../helpers/timers.ts';

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

/** Every reader, so that every refusal is checked for each. */
const READERS = [
  [
    'readRegularFile',
    (path: string, maxBytes = LIMITS.maxBytes) => readRegularFile(path, { ...LIMITS, maxBytes }),
  ],
  [
    'readRegularFileSync',
    async (path: string, maxBytes = LIMITS.maxBytes) => readRegularFileSync(path, { maxBytes }),
  ],
  [
    'RegularFileReader',
    async (path: string, maxBytes = LIMITS.maxBytes) =>
      (await new RegularFileReader({ ...LIMITS, maxBytes }).read(path)).toString('utf8'),
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

  it('reads a file larger than its first buffer whole', async () => {
    // The buffer starts at the size fstat gives, at least 4 KiB, and grows up to the cap.
    const path = join(tempDir(), 'bundle.pem');
    const content = 'x'.repeat(100_000);
    writeFileSync(path, content);
    expect(await read(path, 1024 * 1024)).toBe(content);
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

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve: () => resolve() };
}

/** Opens for real, and records whether each handle was closed. */
function countingOpen() {
  const handles: Array<{ closed: boolean }> = [];
  const open: OpenFile = async (p, flags) => {
    const handle = await promises.open(p, flags);
    const seen = { closed: false };
    handles.push(seen);
    const close = handle.close.bind(handle);
    handle.close = () => {
      seen.closed = true;
      return close();
    };
    return handle;
  };
  return { open, handles };
}

describe('RegularFileReader', () => {
  it('closes what it opened, whether the file is read or refused', async () => {
    const { open, handles } = countingOpen();
    const path = join(tempDir(), 'token');
    writeFileSync(path, 'abc');
    expect((await new RegularFileReader({ ...LIMITS, open }).read(path)).toString()).toBe('abc');
    // Past the stat before the open: the file grows between the stat and the read.
    const growing: OpenFile = async (p, flags) => {
      writeFileSync(p, 'x'.repeat(LIMITS.maxBytes + 1));
      return open(p, flags);
    };
    const err = await refusal(
      new RegularFileReader({ ...LIMITS, open: growing }).read(path).then((b) => b.toString()),
    );
    expect(err.reason).toBe('too_large');
    expect(handles).toEqual([{ closed: true }, { closed: true }]);
  });

  it('gives up on a read that hangs, and does not open the same path again until it returns', async () => {
    const path = join(tempDir(), 'web.yml');
    writeFileSync(path, 'late');
    const other = join(tempDir(), 'other');
    writeFileSync(other, 'other');
    const { timers, fire } = manualTimers();
    const hung = { opens: 0, entered: deferred(), release: deferred(), closed: deferred() };
    // The first open of `path` hangs, as on a stuck network mount, until the test releases it.
    const open: OpenFile = async (p, flags) => {
      if (p !== path) return promises.open(p, flags);
      if (++hung.opens > 1) return promises.open(p, flags);
      hung.entered.resolve();
      await hung.release.promise;
      const handle = await promises.open(p, flags);
      const close = handle.close.bind(handle);
      handle.close = () => close().finally(hung.closed.resolve);
      return handle;
    };
    const reader = new RegularFileReader({ maxBytes: 64, timeoutMs: 5000, timers, open });
    const first = refusal(reader.read(path).then((b) => b.toString()));
    await hung.entered.promise;
    fire(5000);
    const timedOut = await first;
    expect([timedOut.reason, timedOut.message]).toEqual([
      'timeout',
      `${path} did not answer within 5000 ms (a hung mount?)`,
    ]);
    // Refused at once, without another open that would hold a second thread on the same mount.
    const refused = await refusal(reader.read(path).then((b) => b.toString()));
    expect([refused.reason, refused.problem]).toEqual([
      'timeout',
      'is not read again until an earlier read that passed its deadline returns (a hung mount?)',
    ]);
    expect(hung.opens).toBe(1);
    // Other paths are not held up by it.
    expect((await reader.read(other)).toString()).toBe('other');
    // The open comes back at last: its handle is closed and the path may be read again.
    hung.release.resolve();
    await hung.closed.promise;
    // One turn of the event loop: every promise callback of the abandoned read has run by then.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect((await reader.read(path)).toString()).toBe('late');
    expect(hung.opens).toBe(2);
  });
});

describe('formatBytes', () => {
  it('uses the largest whole binary unit', () => {
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(1000)).toBe('1000 bytes');
  });
});
