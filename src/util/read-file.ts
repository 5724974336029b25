/**
 * Reading a small file an operator points the exporter at (config, token, web config, certificates)
 * without trusting what sits there. A plain `readFile` opens a FIFO with a blocking `open()` that
 * never returns without a writer, and a few of those hold every libuv thread (no file or DNS work
 * runs again). Here the file is opened non-blocking, anything but a regular file is refused before
 * a byte is read, the size is capped, and the caller stops waiting after a deadline.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

/** Largest file accepted, in bytes; a larger one is refused (`too_large`). */
export interface ReadLimits {
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
  readonly timers?: DeadlineTimers;
}

/** Why a file was refused: not a regular file, too large, or too slow. */
export type FileRefusal = 'not_regular' | 'too_large' | 'timeout';

/** A refused file: `problem` says why without the path, the message with it; neither quotes the content. */
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

const notRegular = (path: string, info: Stats) =>
  new FileReadError(path, { reason: 'not_regular', problem: `is ${fileKind(info)}, not a regular file` });

const tooLarge = (path: string, maxBytes: number) =>
  new FileReadError(path, {
    reason: 'too_large',
    problem: `is larger than the limit of ${formatBytes(maxBytes)}`,
  });

// O_NONBLOCK: opening a FIFO returns at once; O_NOCTTY: a terminal never becomes the controlling
// one. Neither affects reading a regular file.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

/**
 * Reads a regular file as UTF-8 text. Refuses ({@link FileReadError}) anything but a regular file,
 * a file over `maxBytes` and a read past `timeoutMs`; fs errors (ENOENT, ...) pass through. The
 * kind is checked before the open and on the descriptor, so a file swapped in between is caught.
 * For a path read again and again, use a {@link RegularFileReader}.
 */
export async function readRegularFile(path: string, limits: AsyncReadLimits): Promise<string> {
  return (await withDeadline(readChecked(path, limits), { path, ...limits })).toString('utf8');
}

/** `stat` with a deadline: on a hung network mount a plain stat never returns. */
export function statWithin(path: string, limits: Omit<AsyncReadLimits, 'maxBytes'>): Promise<Stats> {
  return withDeadline(stat(path), { path, ...limits });
}

/** Opens a file; `fs.promises.open` unless a test injects one. */
export type OpenFile = (path: string, flags: number) => Promise<FileHandle>;

/** Stats a file; `fs.promises.stat` unless a test injects one. */
export type StatFile = (path: string) => Promise<Stats>;

/** Options of {@link RegularFileReader}: the limits of every read, and how files are opened. */
export interface RegularFileReaderOptions extends AsyncReadLimits {
  readonly open?: OpenFile;
  readonly stat?: StatFile;
}

/**
 * Reads files that are read again and again, as bytes, with fixed limits. Beyond
 * {@link readRegularFile}, a path whose read outlived its deadline is refused until that read
 * returns: an abandoned read holds a libuv thread (4 by default) while a hung mount keeps it.
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

  /** `stat` with the same deadline and guard: on a hung mount a stat hangs as an open does. */
  stat(path: string): Promise<Stats> {
    return this.#guarded(path, () => (this.#opts.stat ?? stat)(path));
  }

  #guarded<T>(path: string, start: () => Promise<T>): Promise<T> {
    if (this.#hanging.has(path)) return Promise.reject(stillHanging(path));
    const work = start();
    return withDeadline(work, {
      path,
      timeoutMs: this.#opts.timeoutMs,
      timers: this.#opts.timers,
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

/** `info`, when it is a regular file of at most `maxBytes`; refused otherwise. */
function checked(path: string, info: Stats, maxBytes = Number.POSITIVE_INFINITY): Stats {
  if (!info.isFile()) throw notRegular(path, info);
  if (info.size > maxBytes) throw tooLarge(path, maxBytes);
  return info;
}

async function readChecked(
  path: string,
  opts: { readonly maxBytes: number; readonly open?: OpenFile; readonly stat?: StatFile },
): Promise<Buffer> {
  checked(path, await (opts.stat ?? stat)(path), opts.maxBytes);
  const handle = await (opts.open ?? open)(path, OPEN_FLAGS);
  try {
    const reading = cappedRead(path, opts.maxBytes, checked(path, await handle.stat()).size);
    let step = reading.next();
    while (!step.done) step = reading.next((await handle.read(...step.value, null)).bytesRead);
    return step.value;
  } finally {
    await handle.close();
  }
}

/**
 * The read loop of both readers: yields where the next read goes, takes the count read, and
 * returns the bytes at the end of the file. At most the cap + 1 bytes are read, as a file may grow
 * while read and a size of 0 proves nothing (/proc). The buffer starts at the `fstat` size, so a
 * small file does not cost the cap.
 */
function* cappedRead(
  path: string,
  maxBytes: number,
  sizeHint: number,
): Generator<[buffer: Buffer, offset: number, length: number], Buffer, number> {
  const limit = maxBytes + 1;
  let buffer = Buffer.alloc(Math.min(limit, Math.max(sizeHint + 1, 4096)));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length >= limit) throw tooLarge(path, maxBytes);
      const grown = Buffer.alloc(Math.min(limit, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const count = yield [buffer, length, buffer.length - length];
    if (count === 0) return buffer.subarray(0, length);
    length += count;
  }
}

/** Where a deadline applies, and what else to do when it passes. */
interface Deadline {
  readonly path: string;
  readonly timeoutMs: number;
  readonly timers?: DeadlineTimers | undefined;
  readonly onTimeout?: () => void;
}

function withDeadline<T>(work: Promise<T>, at: Deadline): Promise<T> {
  const { path, timeoutMs, timers = realTimers } = at;
  return new Promise<T>((resolve, reject) => {
    const handle = timers.setTimeout(() => {
      at.onTimeout?.();
      const problem = `did not answer within ${timeoutMs} ms (a hung mount?)`;
      reject(new FileReadError(path, { reason: 'timeout', problem }));
    }, timeoutMs);
    work.then(resolve, reject).finally(() => timers.clearTimeout(handle));
  });
}

/**
 * The synchronous twin of {@link readRegularFile} for the config loader: the same refusals but no
 * deadline. Opening non-blocking matters most here: a FIFO would block the main thread itself.
 */
export function readRegularFileSync(path: string, limits: ReadLimits): string {
  checked(path, statSync(path), limits.maxBytes);
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const reading = cappedRead(path, limits.maxBytes, checked(path, fstatSync(fd)).size);
    let step = reading.next();
    while (!step.done) step = reading.next(readSync(fd, ...step.value, null));
    return step.value.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
