/**
 * Reading a small file that an operator points the exporter at (a token file, the config) without
 * trusting what sits at that path. A plain `readFile` opens a FIFO with a blocking `open()`: with
 * no writer it never returns, and a few of those hold every libuv thread, so that no other file
 * or DNS work runs again. Here the file is opened non-blocking, anything that is not a regular
 * file is refused before a byte is read, the size is capped, and the caller stops waiting after a
 * deadline. The one implementation for every such file: the config, the token file, the web
 * config and the certificates it names.
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
function fileKind(info: Stats): string {
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
 * For a path read again and again, use a {@link RegularFileReader}.
 */
export async function readRegularFile(path: string, limits: AsyncReadLimits): Promise<string> {
  const bytes = await withDeadline(readChecked(path, limits), {
    path,
    timeoutMs: limits.timeoutMs,
    timers: limits.timers ?? realTimers,
  });
  return bytes.toString('utf8');
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

/** Opens a file; `fs.promises.open` unless a test injects one. */
export type OpenFile = (path: string, flags: number) => Promise<FileHandle>;

/** Stats a file; `fs.promises.stat` unless a test injects one. */
export type StatFile = (path: string) => Promise<Stats>;

/** Options of {@link RegularFileReader}: the limits of every read, and how files are opened. */
export interface RegularFileReaderOptions extends AsyncReadLimits {
  /** Default: `fs.promises.open`. */
  readonly open?: OpenFile;
  /** Default: `fs.promises.stat`. */
  readonly stat?: StatFile;
}

/**
 * Reads the files of one owner that are read again and again (the web config and the files it
 * names, at every change check), as bytes, with fixed limits. On top of {@link readRegularFile}:
 * a path whose read outlived its deadline is refused until that read returns. An abandoned read
 * still holds a libuv thread in `stat()` or `open()` for as long as a hung mount keeps it, and a
 * new attempt every second would soon hold all of them (4 by default), and with them every file
 * and DNS operation of the process.
 */
export class RegularFileReader {
  readonly #opts: RegularFileReaderOptions;
  /** Paths whose last read passed its deadline and has not returned yet. */
  readonly #hanging = new Set<string>();

  constructor(opts: RegularFileReaderOptions) {
    this.#opts = opts;
  }

  /**
   * The whole file; rejects with {@link FileReadError} (also while an earlier read of the same
   * path hangs) or with the fs error (ENOENT, EACCES, ...).
   */
  read(path: string): Promise<Buffer> {
    return this.#guarded(path, () => readChecked(path, this.#opts));
  }

  /**
   * `stat` with the same deadline and guard: on a hung mount a stat hangs as an open does, and a
   * caller that checks the file before every use (the token provider) must not start a new one
   * each time.
   */
  stat(path: string): Promise<Stats> {
    return this.#guarded(path, () => (this.#opts.stat ?? stat)(path));
  }

  #guarded<T>(path: string, start: () => Promise<T>): Promise<T> {
    if (this.#hanging.has(path)) return Promise.reject(stillHanging(path));
    const work = start();
    return withDeadline(work, {
      path,
      timeoutMs: this.#opts.timeoutMs,
      timers: this.#opts.timers ?? realTimers,
      onTimeout: () => {
        this.#hanging.add(path);
        const release = () => void this.#hanging.delete(path);
        work.then(release, release);
      },
    });
  }
}

function stillHanging(path: string): FileReadError {
  return new FileReadError(path, {
    reason: 'timeout',
    problem: 'is not read again until an earlier read that passed its deadline returns (a hung mount?)',
  });
}

async function readChecked(
  path: string,
  opts: { readonly maxBytes: number; readonly open?: OpenFile; readonly stat?: StatFile },
): Promise<Buffer> {
  const { maxBytes } = opts;
  const before = await (opts.stat ?? stat)(path);
  if (!before.isFile()) throw notRegular(path, before);
  if (before.size > maxBytes) throw tooLarge(path, maxBytes);
  const handle = await (opts.open ?? open)(path, OPEN_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, info);
    const bytes = new CappedBytes({ maxBytes, sizeHint: info.size });
    for (let room = bytes.room(); room !== undefined; room = bytes.room()) {
      const { bytesRead } = await handle.read(room.buffer, room.offset, room.length, null);
      if (bytesRead === 0) break;
      bytes.added(bytesRead);
    }
    if (bytes.overCap()) throw tooLarge(path, maxBytes);
    return bytes.bytes();
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of a file read so far, never more than the cap + 1: the file may grow while it is
 * read, and a size of 0 proves nothing (/proc). The buffer starts at the size `fstat` gave and
 * grows when that was short, so a 1 MiB cap does not cost 1 MiB for a 200-byte file.
 */
class CappedBytes {
  readonly #limit: number;
  #buffer: Buffer;
  #length = 0;

  constructor(opts: { readonly maxBytes: number; readonly sizeHint: number }) {
    this.#limit = opts.maxBytes + 1;
    this.#buffer = Buffer.alloc(Math.min(this.#limit, Math.max(opts.sizeHint + 1, 4096)));
  }

  /** Where the next read goes, or `undefined` once the cap + 1 bytes are in. */
  room(): { buffer: Buffer; offset: number; length: number } | undefined {
    if (this.#length === this.#buffer.length) {
      if (this.#length >= this.#limit) return undefined;
      const grown = Buffer.alloc(Math.min(this.#limit, this.#buffer.length * 2));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    return { buffer: this.#buffer, offset: this.#length, length: this.#buffer.length - this.#length };
  }

  added(count: number): void {
    this.#length += count;
  }

  overCap(): boolean {
    return this.#length >= this.#limit;
  }

  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }
}

/** Where a deadline applies, and what else to do when it passes. */
interface Deadline {
  readonly path: string;
  readonly timeoutMs: number;
  readonly timers: DeadlineTimers;
  readonly onTimeout?: () => void;
}

function withDeadline<T>(work: Promise<T>, at: Deadline): Promise<T> {
  const { path, timeoutMs, timers } = at;
  return new Promise<T>((resolve, reject) => {
    const handle = timers.setTimeout(() => {
      at.onTimeout?.();
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
    const bytes = new CappedBytes({ maxBytes, sizeHint: info.size });
    for (let room = bytes.room(); room !== undefined; room = bytes.room()) {
      const bytesRead = readSync(fd, room.buffer, room.offset, room.length, null);
      if (bytesRead === 0) break;
      bytes.added(bytesRead);
    }
    if (bytes.overCap()) throw tooLarge(path, maxBytes);
    return bytes.bytes().toString('utf8');
  } finally {
    closeSync(fd);
  }
}
