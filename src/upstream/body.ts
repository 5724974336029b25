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

/** What the answer's headers say about its body. */
export interface BodyHead {
  /** `Content-Encoding`. */
  readonly encoding?: string | undefined;
  /** `Content-Length`, when sent: an uncompressed body is then read into one buffer of that size. */
  readonly length?: number | undefined;
}

/**
 * Collects a body's chunks. With the length known, into one buffer of that size as they come:
 * chunks and their concatenation never coexist, which halves the peak for a large answer.
 */
class BodySink {
  readonly #chunks: Buffer[] = [];
  #whole: Buffer | undefined;
  size = 0;

  constructor(expected: number | undefined) {
    if (expected !== undefined && expected > 0) this.#whole = Buffer.allocUnsafe(expected);
  }

  push(chunk: Buffer): void {
    const whole = this.#whole;
    if (whole && this.size + chunk.length <= whole.length) chunk.copy(whole, this.size);
    else {
      // More than announced: keep what came, as chunks from here on.
      if (whole) this.#chunks.push(whole.subarray(0, this.size));
      this.#whole = undefined;
      this.#chunks.push(chunk);
    }
    this.size += chunk.length;
  }

  bytes(): Buffer {
    if (this.#whole)
      return this.size === this.#whole.length ? this.#whole : this.#whole.subarray(0, this.size);
    return Buffer.concat(this.#chunks, this.size);
  }
}

/**
 * Reads a body, stopping as soon as it passes `limit` bytes, on the wire or once
 * decompressed (a small gzip answer can unpack to gigabytes). An unknown `encoding` is read
 * as is. Returns the bytes (kept as bytes: the decoder indexes them without a copy as text)
 * and the bytes received, `tooLarge` when over the limit, or `corrupt` when the body came whole
 * but does not decompress. A failure of the connection itself is thrown, as before.
 */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  head: BodyHead,
  limit: number,
): Promise<BodyRead> {
  const { encoding } = head;
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
  // A length is believed only up to the limit, and only without a decoder (it counts wire bytes).
  const announced = head.length !== undefined && head.length <= limit && !decoder ? head.length : undefined;
  const sink = new BodySink(announced);
  try {
    for await (const chunk of source) {
      if (sink.size + chunk.length > limit) {
        over = true;
        break;
      }
      sink.push(chunk);
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
  return { bytes: sink.bytes(), wireBytes };
}

/** Parses JSON text; undefined for anything that is not JSON (callers judge the shape). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
