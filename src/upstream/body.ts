/** Reading an upstream answer's body: decompression, the size ceiling, and lenient JSON. */
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

/** Address space one body's buffer reserves at most at once; a larger body moves to a new one. */
const MAX_RESERVE_BYTES = 256 * 1024 * 1024;

/** First size of a body's buffer when its length is not announced: a station summary fits. */
const FIRST_BYTES = 64 * 1024;

/**
 * Collects a body into a resizable `ArrayBuffer` of its own (sized from an announced length),
 * copying each chunk as it comes. Why: chunks joined into one malloc block at the end spread
 * megabytes through glibc's heap between blocks that live on, and every burst of large answers
 * would raise the RSS for good; V8 maps such a buffer page by page and unmaps it whole.
 */
class BodySink {
  #store: ResizableBuffer;
  #view: Buffer;
  size = 0;

  constructor(opts: { readonly expected: number | undefined; readonly limit: number }) {
    const first = opts.expected !== undefined && opts.expected > 0 ? opts.expected : 0;
    this.#store = reserve(first, Math.max(first, Math.min(opts.limit, MAX_RESERVE_BYTES)));
    this.#view = Buffer.from(this.#store);
  }

  push(chunk: Buffer): void {
    const need = this.size + chunk.length;
    if (need > this.#store.byteLength) this.#grow(need);
    chunk.copy(this.#view, this.size);
    this.size = need;
  }

  /** The bytes received; pages committed beyond them are given back. */
  bytes(): Buffer {
    if (this.#store.byteLength > this.size) this.#store.resize(this.size);
    return Buffer.from(this.#store, 0, this.size);
  }

  /** At least `need` bytes, doubling so that a large body is resized a few times only. */
  #grow(need: number): void {
    const store = this.#store;
    const wanted = Math.max(need, FIRST_BYTES, store.byteLength * 2);
    if (need <= store.maxByteLength) store.resize(Math.min(wanted, store.maxByteLength));
    else {
      // Only with a limit above the reservation: a new one, twice as large, and one copy.
      const next = reserve(need, Math.max(need, store.maxByteLength * 2));
      Buffer.from(next).set(this.#view.subarray(0, this.size));
      this.#store = next;
    }
    this.#view = Buffer.from(this.#store);
  }
}

/** An ES2024 resizable `ArrayBuffer` (Node 20 and later; the project's TypeScript lib is ES2023). */
interface ResizableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(length: number): void;
}

const Resizable = ArrayBuffer as unknown as new (
  length: number,
  options: { maxByteLength: number },
) => ResizableBuffer;

/** A resizable buffer of `length` bytes that can grow to `max` in place. */
function reserve(length: number, max: number): ResizableBuffer {
  return new Resizable(length, { maxByteLength: max });
}

/**
 * Reads a body, stopping as soon as it passes `limit` bytes on the wire or decompressed (a small
 * gzip answer can unpack to gigabytes); an unknown `encoding` is read as is. Returns the bytes,
 * `tooLarge`, or `corrupt` when the body came whole but does not decompress; a failure of the
 * connection itself is thrown.
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
  const sink = new BodySink({ expected: announced, limit });
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

/** Parses JSON text; undefined for anything that is not JSON (callers evaluate the shape). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
