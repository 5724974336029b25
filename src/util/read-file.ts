/**
 * Reading a small file that an operator points the exporter at (a token file, the config) without
 * trusting what sits at that path. A plain `readFile` opens a FIFO with a blocking `open()`: with
 * no writer it never returns, and a few of those hold every libuv thread, so that no other file
 * or DNS work runs again. Here the file is opened non-blocking, anything that is not a regular
 * file is refused before a byte is read, the size is capped, and the caller stops waiting after a
 * deadline.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

/** How much a read may cost. */
export interface ReadLimits {
  /** Largest file accepted, in bytes; a larger one is refused (`too_large`). */
  readonly maxBytes: number;
}

/** Timer functions of the deadline, injectable so that tests control time. */
export interface DeadlineTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: DeadlineTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Limits of an asynchronous read: the size cap and a deadline. */
export interface AsyncReadLimits extends ReadLimits {
  /** The read fails (`timeout`) when it has not finished after this long, e.g. on a hung mount. */
  readonly timeoutMs: number;
  /** Default: the real timers. */
  readonly timers?: DeadlineTimers;
}

/** Why a file was refused: not a regular file, too large, or too slow. */
export type FileRefusal = 'not_regular' | 'too_large' | 'timeout';

/**
 * A file the reader refused. `problem` says why without the path (`is a FIFO (named pipe), not a
 * regular file`), the message with it; neither ever quotes the content.
 */
export class FileReadError extends Error {
  readonly path: string;
  readonly reason: FileRefusal;
  readonly problem: string;

  constructor(path: string, failure: { readonly reason: FileRefusal; readonly problem: string }) {
    super(`${path} ${failure.problem}`);
    this.name = 'FileReadError';
    this.path = path;
    this.reason = failure.reason;
    this.problem = failure.problem;
  }
}

/** What a path holds, in words, for anything but a regular file. */
export function fileKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a plain file';
}

/** A size in the largest whole binary unit, e.g. `1 MiB`, `64 KiB`, `1000 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`;
  return `${bytes} bytes`;
}

function notRegular(path: string, info: Stats): FileReadError {
  return new FileReadError(path, {
    reason: 'not_regular',
    problem: `is ${fileKind(info)}, not a regular file`,
  });
}

function tooLarge(path: string, maxBytes: number): FileReadError {
  return new FileReadError(path, {
    reason: 'too_large',
    problem: `is larger than the limit of ${formatBytes(maxBytes)}`,
  });
}

// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; O_NOCTTY: a
// terminal device never becomes the process's controlling terminal. Reads of a regular file
// are not affected by either.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

/**
 * Reads a regular file as UTF-8 text. Refuses ({@link FileReadError}) a FIFO, a device, a
 * directory or a socket, a file larger than `maxBytes`, and a read still running after
 * `timeoutMs`; fs errors (ENOENT, EACCES, ...) pass through as they are. The kind is checked
 * before the open and again on the open descriptor, so a file swapped in between is caught.
 * A read abandoned at its deadline closes its descriptor whenever its `open()` comes back.
 */
export function readRegularFile(path: string, limits: AsyncReadLimits): Promise<string> {
  return withDeadline(readChecked(path, limits.maxBytes), {
    path,
    timeoutMs: limits.timeoutMs,
    timers: limits.timers ?? realTimers,
  });
}

/**
 * `stat` with a deadline: on a hung network mount a plain stat never returns, and the caller
 * (a token provider asked for every request) must not wait with it.
 */
export function statWithin(path: string, limits: Omit<AsyncReadLimits, 'maxBytes'>): Promise<Stats> {
  return withDeadline(stat(path), {
    path,
    timeoutMs: limits.timeoutMs,
    timers: limits.timers ?? realTimers,
  });
}

async function readChecked(path: string, maxBytes: number): Promise<string> {
  const before = await stat(path);
  if (!before.isFile()) throw notRegular(path, before);
  if (before.size > maxBytes) throw tooLarge(path, maxBytes);
  const handle = await open(path, OPEN_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, info);
    return await readCapped(handle, { path, maxBytes });
  } finally {
    await handle.close();
  }
}

/** Reads to the end, but never more than `maxBytes` + 1 bytes: the file may grow while read. */
async function readCapped(handle: FileHandle, at: { readonly path: string; readonly maxBytes: number }) {
  const buffer = Buffer.alloc(at.maxBytes + 1);
  let length = 0;
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > at.maxBytes) throw tooLarge(at.path, at.maxBytes);
  return buffer.toString('utf8', 0, length);
}

function withDeadline<T>(
  work: Promise<T>,
  at: { readonly path: string; readonly timeoutMs: number; readonly timers: DeadlineTimers },
): Promise<T> {
  const { path, timeoutMs, timers } = at;
  return new Promise<T>((resolve, reject) => {
    const handle = timers.setTimeout(() => {
      reject(
        new FileReadError(path, {
          reason: 'timeout',
          problem: `did not answer within ${timeoutMs} ms (a hung mount?)`,
        }),
      );
    }, timeoutMs);
    work.then(
      (value) => {
        timers.clearTimeout(handle);
        resolve(value);
      },
      (err: unknown) => {
        timers.clearTimeout(handle);
        reject(err);
      },
    );
  });
}

/**
 * The synchronous twin of {@link readRegularFile}, for the config loader's checks: the same
 * refusals except the deadline (a synchronous read cannot be left behind). Opening non-blocking
 * is what matters here: a FIFO would otherwise block the main thread itself.
 */
export function readRegularFileSync(path: string, limits: ReadLimits): string {
  const { maxBytes } = limits;
  const before = statSync(path);
  if (!before.isFile()) throw notRegular(path, before);
  if (before.size > maxBytes) throw tooLarge(path, maxBytes);
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notRegular(path, info);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(path, maxBytes);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
