/** Gzip-compressed newline-delimited JSON, the format of recordings. */

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';

/** The size and SHA-256 (hex) of a file's bytes as stored (compressed). */
export interface FileDigest {
  readonly bytes: number;
  readonly sha256: string;
}

/** A writer of one `.ndjson.gz` file; `write` respects back-pressure. */
export interface NdjsonWriter {
  write(value: unknown): Promise<void>;
  /** Ends the gzip stream and closes the file; resolves to the digest of what was written. */
  close(): Promise<FileDigest>;
}

/** Opens `path` for writing (truncating it). */
export function ndjsonWriter(path: string): NdjsonWriter {
  const gzip = createGzip();
  const file = createWriteStream(path);
  // The digest is taken of the bytes on their way to the file, so the file is never read back.
  const hash = createHash('sha256');
  let bytes = 0;
  gzip.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  gzip.pipe(file);
  // Concurrent writers share one wait for 'drain' instead of each adding listeners.
  let drained: Promise<unknown> | undefined;
  return {
    async write(value) {
      if (!gzip.write(`${JSON.stringify(value)}\n`) && !drained) {
        drained = once(gzip, 'drain').finally(() => {
          drained = undefined;
        });
      }
      if (drained) await drained;
    },
    async close() {
      const done = once(file, 'close');
      gzip.end();
      await done;
      return { bytes, sha256: hash.digest('hex') };
    },
  };
}

/**
 * Reads every value of an `.ndjson.gz` file, in order. With `expected`, its size and SHA-256 are
 * checked first: a file cut short or from another recording is refused as such, not as a parse error.
 */
export async function readNdjson<T>(path: string, expected?: FileDigest): Promise<T[]> {
  if (expected) await checkDigest(path, expected);
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  const out: T[] = [];
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      out.push(parseLine<T>(line, `${path}:${n}`));
    }
  } catch (err) {
    if (isZlibError(err)) throw new Error(`${path}: not a complete gzip file (${err.message})`);
    throw err;
  }
  return out;
}

async function checkDigest(path: string, expected: FileDigest): Promise<void> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') throw new Error(`${path}: missing`);
    throw err;
  }
  if (bytes !== expected.bytes)
    throw new Error(`${path}: ${bytes} bytes, but meta.json says ${expected.bytes}`);
  const sha256 = hash.digest('hex');
  if (sha256 !== expected.sha256)
    throw new Error(`${path}: SHA-256 ${sha256} differs from ${expected.sha256} in meta.json`);
}

function parseLine<T>(line: string, where: string): T {
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`${where}: not a JSON value`);
  }
}

function isZlibError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}
