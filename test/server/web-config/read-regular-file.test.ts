import { mkdtempSync, promises, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  FileRefusedError,
  type OpenFile,
  RegularFileReader,
} from '../../../src/server/web-config/read-regular-file.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'regular-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

const reader = (maxBytes = 1024 * 1024, open?: OpenFile) =>
  new RegularFileReader({ maxBytes, deadlineMs: 5000, open });

describe('reading a regular file', () => {
  it('reads a file whole, also one larger than its first buffer', async () => {
    const file = path.join(dir, 'a.pem');
    const content = Buffer.alloc(100_000, 'x');
    writeFileSync(file, content);
    expect((await reader().read(file)).equals(content)).toBe(true);
  });

  it('reads a file of exactly the cap and refuses one byte more', async () => {
    const file = path.join(dir, 'cap');
    writeFileSync(file, 'x'.repeat(10));
    expect((await reader(10).read(file)).toString()).toBe('xxxxxxxxxx');
    writeFileSync(file, 'x'.repeat(11));
    await expect(reader(10).read(file)).rejects.toThrow('larger than 10 bytes, the limit for this file');
  });

  it('refuses a directory and a device without reading them', async () => {
    await expect(reader().read(dir)).rejects.toThrow(
      new FileRefusedError('not a regular file (a directory)'),
    );
    // /dev/zero never ends: read whole it would fill the heap.
    await expect(reader().read('/dev/zero')).rejects.toThrow('not a regular file (a character device)');
  });

  it('passes system errors on', async () => {
    await expect(reader().read(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('closes what it opened, refused or not', async () => {
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
    const file = path.join(dir, 'closed');
    writeFileSync(file, 'abc');
    await reader(1024, open).read(file);
    await reader(1024, open)
      .read(dir)
      .catch(() => {});
    await reader(2, open)
      .read(file)
      .catch(() => {});
    expect(handles).toEqual([{ closed: true }, { closed: true }, { closed: true }]);
  });

  it('gives up on an open that hangs, and does not open the same path again until it returns', async () => {
    vi.useFakeTimers();
    const file = path.join(dir, 'slow');
    writeFileSync(file, 'late');
    let release: () => Promise<void> = async () => {};
    let opens = 0;
    const open: OpenFile = (p, flags) => {
      opens++;
      if (opens > 1) return promises.open(p, flags);
      return new Promise((resolve, reject) => {
        release = () => promises.open(p, flags).then(resolve, reject);
      });
    };
    const r = reader(1024, open);
    const failed = expect(r.read(file)).rejects.toThrow('did not open and read within 5 s');
    await vi.advanceTimersByTimeAsync(5000);
    await failed;
    await expect(r.read(file)).rejects.toThrow('an earlier open of this file has not returned yet');
    expect(opens).toBe(1);
    // The open comes back at last: its handle is closed and the path may be read again.
    vi.useRealTimers();
    await release();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect((await r.read(file)).toString()).toBe('late');
    expect(opens).toBe(2);
  });
});
