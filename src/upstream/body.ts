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

/**
 * A body read whole (its bytes, decompressed), or the news that it passed the limit, or that it
 * did not decompress (`corrupt`, with the decoder's words); `wireBytes` as received every time.
 */
export type BodyRead =
  | { bytes: Buffer; wireBytes: number }
  | { tooLarge: true; wireBytes: number }
  | { corrupt: string; wireBytes: number };

/**
 * Reads a body, stopping as soon as it passes `limit` bytes, on the wire or once
 * decompressed (a small gzip answer can unpack to gigabytes). An unknown `encoding` is read
 * as is. Returns the bytes (kept as bytes: the decoder indexes them without a copy as text)
 * and the bytes received, `tooLarge` when over the limit, or `corrupt` when the body came whole
 * but does not decompress. A failure of the connection itself is thrown, as before.
 */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  encoding: string | undefined,
  limit: number,
): Promise<BodyRead> {
  let wireBytes = 0;
  let over = false;
  // Set when the connection failed, so that its error is not taken for a corrupt body.
  let wireFailure: { readonly error: unknown } | undefined;
  async function* counted() {
    try {
      for await (const chunk of body) {
        wireBytes += chunk.length;
        if (wireBytes > limit) {
          over = true;
          return;
        }
        yield chunk;
      }
    } catch (error) {
      wireFailure = { error };
      throw error;
    }
  }
  const decoder = encoding ? DECODERS[encoding.trim().toLowerCase()] : undefined;
  const source: AsyncIterable<Buffer> = decoder
    ? (pipeline(Readable.from(counted()), decoder(), () => undefined) as unknown as AsyncIterable<Buffer>)
    : counted();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > limit) {
        over = true;
        break;
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (wireFailure !== undefined || decoder === undefined) throw wireFailure?.error ?? err;
    body.destroy();
    return { corrupt: err instanceof Error ? err.message : String(err), wireBytes };
  }
  if (over) {
    body.destroy();
    return { tooLarge: true, wireBytes };
  }
  return { bytes: Buffer.concat(chunks, size), wireBytes };
}

/** Parses JSON text; undefined for anything that is not JSON (callers judge the shape). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
