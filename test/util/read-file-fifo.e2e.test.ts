/**
 * A FIFO in place of a file (issue 33, defect 5). Node cannot make one itself, so this runs
 * mkfifo as a child process and is an e2e test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileReadError, readRegularFile, readRegularFileSync } from '../../src/util/read-file.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO nobody writes to: a blocking open() of it never returns. */
function fifo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fifo-test-'));
  dirs.push(dir);
  const path = join(dir, 'token');
  execFileSync('mkfifo', [path]);
  return path;
}

describe('a FIFO', () => {
  it('is refused at once by both readers, naming the path and the kind', async () => {
    const path = fifo();
    const message = `${path} is a FIFO (named pipe), not a regular file`;
    // Several at once: with a blocking open each would hold a libuv thread for good.
    // allSettled handles every rejection at once: awaiting them one by one would leave the
    // later ones unhandled for a tick, which vitest reports as an error.
    const reads = Array.from({ length: 8 }, () => readRegularFile(path, { maxBytes: 64, timeoutMs: 60_000 }));
    for (const result of await Promise.allSettled(reads)) {
      expect(result.status).toBe('rejected');
      const err = (result as PromiseRejectedResult).reason as unknown;
      expect(err).toBeInstanceOf(FileReadError);
      expect((err as FileReadError).message).toBe(message);
    }
    expect(() => readRegularFileSync(path, { maxBytes: 64 })).toThrow(message);
  });
});
