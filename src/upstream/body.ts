/**
 * Reading an upstream answer's body: decompression, the size ceiling, and lenient JSON.
 */
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Decompressors for the content codings the client accepts. */
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A body read whole, or the news that it passed the limit; `wireBytes` as received either way. */
export type BodyRead = { text: string; wireBytes: number } | { tooLarge: true; wireBytes: number };

/**
 * Reads a body, stopping as soon as it passes `limit` bytes, on the wire or once
 * decompressed (a small gzip answer can unpack to gigabytes). An unknown `encoding` is read
 * as is. Returns the text and the bytes received, or `tooLarge` when over the limit.
 */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  encoding: string | undefined,
  limit: number,
): Promise<BodyRead> {
  let wireBytes = 0;
  let over = false;
  async function* counted() {
    for await (const chunk of body) {
      wireBytes += chunk.length;
      if (wireBytes > limit) {
        over = true;
        return;
      }
      yield chunk;
    }
  }
  const decoder = encoding ? DECODERS[encoding.trim().toLowerCase()] : undefined;
  const source: AsyncIterable<Buffer> = decoder
    ? (pipeline(Readable.from(counted()), decoder(), () => undefined) as unknown as AsyncIterable<Buffer>)
    : counted();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > limit) {
      over = true;
      break;
    }
    chunks.push(chunk);
  }
  if (over) {
    body.destroy();
    return { tooLarge: true, wireBytes };
  }
  return { text: Buffer.concat(chunks).toString('utf8'), wireBytes };
}

/** Parses JSON text; undefined for anything that is not JSON (callers judge the shape). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
