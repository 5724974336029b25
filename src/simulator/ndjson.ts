/** Gzip-compressed newline-delimited JSON, the format of recordings. */

import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';

/** A writer of one `.ndjson.gz` file; `write` respects back-pressure. */
export interface NdjsonWriter {
  write(value: unknown): Promise<void>;
  /** Values written so far. */
  readonly count: number;
  close(): Promise<void>;
}

/** Opens `path` for writing (truncating it). */
export function ndjsonWriter(path: string): NdjsonWriter {
  const gzip = createGzip();
  const file = createWriteStream(path);
  gzip.pipe(file);
  let count = 0;
  // Concurrent writers share one wait for 'drain' instead of each adding listeners.
  let drained: Promise<unknown> | undefined;
  return {
    async write(value) {
      count++;
      if (!gzip.write(`${JSON.stringify(value)}\n`) && !drained) {
        drained = once(gzip, 'drain').finally(() => {
          drained = undefined;
        });
      }
      if (drained) await drained;
    },
    get count() {
      return count;
    },
    async close() {
      const done = once(file, 'close');
      gzip.end();
      await done;
    },
  };
}

/** Reads every value of an `.ndjson.gz` file, in order. */
export async function readNdjson<T>(path: string): Promise<T[]> {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  const out: T[] = [];
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      throw new Error(`${path}:${n}: not a JSON value`);
    }
  }
  return out;
}
