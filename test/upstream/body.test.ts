import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseJson, readBody } from '../../src/upstream/body.ts';

/** A body as undici hands it: an async iterable of buffers that can be destroyed. */
function body(chunks: Buffer[]): Readable {
  return Readable.from(chunks, { objectMode: false });
}

describe('readBody', () => {
  it('reads a plain body whole, counting the bytes received', async () => {
    const text = '{"data":[1,2,3]}';
    const read = await readBody(body([Buffer.from(text.slice(0, 5)), Buffer.from(text.slice(5))]), {}, 1000);
    expect(read).toEqual({ bytes: Buffer.from(text), wireBytes: Buffer.byteLength(text) });
  });

  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    [' GZIP ', gzipSync],
  ])('decodes %j', async (encoding, compress) => {
    const text = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ i })) });
    const packed = compress(Buffer.from(text));
    const read = await readBody(body([packed]), { encoding }, 1_000_000);
    expect(read).toEqual({ bytes: Buffer.from(text), wireBytes: packed.length });
  });

  it('stops a small gzip answer that unpacks past the limit', async () => {
    const packed = gzipSync(Buffer.alloc(5_000_000, 0x20));
    expect(packed.length).toBeLessThan(10_000);
    const stream = body([packed]);
    const read = await readBody(stream, { encoding: 'gzip' }, 100_000);
    expect(read).toEqual({ tooLarge: true, wireBytes: packed.length });
    expect(stream.destroyed).toBe(true);
  });

  it('stops a plain body at the first chunk past the limit, not after it', async () => {
    const chunks = Array.from({ length: 10 }, () => Buffer.alloc(100, 0x61));
    const read = await readBody(body(chunks), {}, 250);
    expect(read).toEqual({ tooLarge: true, wireBytes: 300 });
  });

  it('accepts a body exactly at the limit', async () => {
    const read = await readBody(body([Buffer.alloc(250, 0x61)]), {}, 250);
    expect(read).toEqual({ bytes: Buffer.alloc(250, 0x61), wireBytes: 250 });
  });

  it('reads a body of announced length into one buffer, and copes with a wrong announcement', async () => {
    const parts = [Buffer.from('{"data":'), Buffer.from('[1,2]}')];
    expect(await readBody(body(parts), { length: 14 }, 100)).toEqual({
      bytes: Buffer.from('{"data":[1,2]}'),
      wireBytes: 14,
    });
    expect(await readBody(body(parts), { length: 4 }, 100)).toEqual({
      bytes: Buffer.from('{"data":[1,2]}'),
      wireBytes: 14,
    });
    expect(await readBody(body(parts), { length: 40 }, 100)).toEqual({
      bytes: Buffer.from('{"data":[1,2]}'),
      wireBytes: 14,
    });
    // A length over the limit is not believed (nothing that large is allocated).
    expect(await readBody(body(parts), { length: 1e12 }, 100)).toEqual({
      bytes: Buffer.from('{"data":[1,2]}'),
      wireBytes: 14,
    });
  });

  it('reads an unknown coding as is rather than guessing', async () => {
    const read = await readBody(body([Buffer.from('plain')]), { encoding: 'compress' }, 100);
    expect(read).toEqual({ bytes: Buffer.from('plain'), wireBytes: 5 });
  });
});

describe('corrupt bodies', () => {
  it.each([
    ['gzip', Buffer.from('this is not gzip at all')],
    ['gzip', gzipSync(Buffer.from('{"data":[1,2,3]}')).subarray(0, 12)],
    ['deflate', Buffer.from('nor deflate')],
    ['br', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
  ])('names a %s body that does not decompress corrupt, not a network failure', async (encoding, bytes) => {
    const stream = body([bytes]);
    const read = await readBody(stream, { encoding }, 1_000_000);
    expect(read).toMatchObject({ corrupt: expect.any(String), wireBytes: bytes.length });
  });

  it('still throws when the connection itself fails under a compressed body', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      },
    });
    await expect(readBody(failing, { encoding: 'gzip' }, 1_000_000)).rejects.toThrow('socket hang up');
  });
});

describe('parseJson', () => {
  it('parses JSON and answers undefined for anything else', () => {
    expect(parseJson('{"a":1}')).toEqual({ a: 1 });
    expect(parseJson('<html>bad gateway</html>')).toBeUndefined();
    expect(parseJson('')).toBeUndefined();
  });
});

/**
 * A body as undici hands it, whose chunks the connection reuses: each chunk is overwritten once
 * the reader asks for the next one. A reader that copies as it goes keeps the real bytes; one
 * that keeps the chunks to join them at the end (the old sink) ends with the overwritten ones.
 */
function reusedChunks(parts: string[]): AsyncIterable<Buffer> & { destroy(): void } {
  return {
    async *[Symbol.asyncIterator]() {
      for (const part of parts) {
        const chunk = Buffer.from(part);
        yield chunk;
        chunk.fill(0x2a);
      }
    },
    destroy: () => undefined,
  };
}

describe('the memory a body holds', () => {
  it('copies each chunk as it comes, so that no chunk of the connection is kept to the end', async () => {
    const read = await readBody(reusedChunks(['{"data":', '[1,2]', '}']), {}, 1000);
    expect(read).toEqual({ bytes: Buffer.from('{"data":[1,2]}'), wireBytes: 14 });
  });

  it('keeps the body in a resizable buffer of its own, sized to the body, not in malloc blocks', async () => {
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(4096, 0x61));
    const read = await readBody(body(chunks), {}, 1_000_000);
    if (!('bytes' in read)) throw new Error('expected the body');
    const store = read.bytes.buffer as ArrayBuffer & { resizable?: boolean };
    expect(store.resizable).toBe(true);
    expect(store.byteLength).toBe(40 * 4096);
    expect(read.bytes.equals(Buffer.alloc(40 * 4096, 0x61))).toBe(true);
  });

  it('reads a body whole when there is no limit', async () => {
    const chunks = [Buffer.alloc(300_000, 0x62), Buffer.alloc(300_000, 0x63)];
    const read = await readBody(body(chunks), {}, Number.POSITIVE_INFINITY);
    expect(read).toEqual({ bytes: Buffer.concat(chunks), wireBytes: 600_000 });
  });
});
