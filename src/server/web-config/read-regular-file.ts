/**
 * Reads a file the web config depends on (the web config itself, a certificate, a key, a CA)
 * without ever blocking the event loop and without reading more than a cap. `readFileSync` on a
 * FIFO waits for a writer with the main thread stuck in `open()`, and on `/dev/zero` reads
 * forever: here the file is opened with `O_NONBLOCK` on a libuv thread (an open of a FIFO then
 * returns at once), `fstat` of the open descriptor refuses anything that is not a regular file,
 * and the read stops one byte past the cap. An open that hangs (a stuck network file system)
 * is given up after a deadline, and the same path is not opened again until that open returns,
 * so that a hung mount cannot take every libuv thread.
 */
import { constants, type promises as fsp, promises } from 'node:fs';

/** 1 MiB: a web config, a certificate chain or a CA bundle is a few kilobytes. */
export const WEB_CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/** How long an open and read may take before the file counts as unreadable. */
export const WEB_CONFIG_FILE_DEADLINE_MS = 5000;

/** A file refused before or while reading it; the message says why, never what it holds. */
export class FileRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'FileRefusedError';
  }
}

/** Opens a file; `fs.promises.open` unless a test injects one. */
export type OpenFile = (path: string, flags: number) => Promise<fsp.FileHandle>;

/** Options of {@link RegularFileReader}. */
export interface RegularFileReaderOptions {
  readonly maxBytes: number;
  readonly deadlineMs: number;
  readonly open?: OpenFile;
}

// O_NONBLOCK does not exist on Windows, where FIFOs are not files anyway.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Reads regular files up to a size cap and within a deadline. */
export class RegularFileReader {
  readonly #maxBytes: number;
  readonly #deadlineMs: number;
  readonly #open: OpenFile;
  /** Paths whose last open outlived its deadline and has not returned yet. */
  readonly #hanging = new Set<string>();

  constructor(opts: RegularFileReaderOptions) {
    this.#maxBytes = opts.maxBytes;
    this.#deadlineMs = opts.deadlineMs;
    this.#open = opts.open ?? promises.open;
  }

  /** The whole file; rejects with {@link FileRefusedError} or the system error (ENOENT, EACCES). */
  read(path: string): Promise<Buffer> {
    if (this.#hanging.has(path)) {
      return Promise.reject(new FileRefusedError('an earlier open of this file has not returned yet'));
    }
    const opening = this.#open(path, OPEN_FLAGS);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        this.#hanging.add(path);
        // The open may still succeed later: close what it gives back and allow the path again.
        opening.then(
          (handle) => handle.close().catch(() => {}),
          () => {},
        );
        opening.finally(() => this.#hanging.delete(path)).catch(() => {});
        reject(new FileRefusedError(`did not open and read within ${this.#deadlineMs / 1000} s`));
      }, this.#deadlineMs);
      timer.unref?.();
    });
    const reading = opening.then((handle) => readOpened(handle, this.#maxBytes));
    return Promise.race([reading, deadline]).finally(() => clearTimeout(timer));
  }
}

async function readOpened(handle: fsp.FileHandle, maxBytes: number): Promise<Buffer> {
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new FileRefusedError(`not a regular file (${kindOf(stat)})`);
    if (stat.size > maxBytes) throw new FileRefusedError(tooLarge(maxBytes));
    // The size is only a hint: the file can grow between fstat and read, and /proc-like files say 0.
    const limit = maxBytes + 1;
    let buffer = Buffer.alloc(Math.min(limit, Math.max(stat.size + 1, 4096)));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length >= limit) break;
        const grown = Buffer.alloc(Math.min(limit, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new FileRefusedError(tooLarge(maxBytes));
    return buffer.subarray(0, length);
  } finally {
    await handle.close().catch(() => {});
  }
}

function tooLarge(maxBytes: number): string {
  return maxBytes % (1024 * 1024) === 0
    ? `larger than ${maxBytes / (1024 * 1024)} MiB, the limit for this file`
    : `larger than ${maxBytes} bytes, the limit for this file`;
}

function kindOf(stat: {
  isFIFO(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (stat.isFIFO()) return 'a FIFO or pipe';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/** The reader the web config uses: 1 MiB per file, 5 s per file. */
export const webConfigFileReader = new RegularFileReader({
  maxBytes: WEB_CONFIG_FILE_MAX_BYTES,
  deadlineMs: WEB_CONFIG_FILE_DEADLINE_MS,
});
