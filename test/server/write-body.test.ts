/**
 * The /metrics body goes out a piece at a time, each piece a view of the shared buffers, at
 * most two handed over at once: a client that does not read holds two pieces, not the body.
 */
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PLAIN_PIECE_BYTES, pieceBytesFor, TLS_PIECE_BYTES, writeBody } from '../../src/server/write-body.ts';

const PIECE_BYTES = TLS_PIECE_BYTES;

/** A response whose writes complete only when the test says so (a client reading on demand). */
function heldResponse() {
  const pieces: Buffer[] = [];
  const pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: PIECE_BYTES,
    write(chunk: Buffer, _encoding, done) {
      pieces.push(chunk);
      pending.push(done);
    },
  });
  const flushOne = () => pending.shift()?.();
  return { out, pieces, pending, flushOne };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('writeBody', () => {
  it('hands over pieces, at most two at a time, each a view of the shared buffers, and ends', async () => {
    const shared = [Buffer.alloc(3 * PIECE_BYTES + 10, 1), Buffer.alloc(100, 2)];
    const { out, pieces, pending, flushOne } = heldResponse();
    let finished = false;
    out.on('finish', () => (finished = true));
    const done = writeBody(out as unknown as ServerResponse, shared, PIECE_BYTES);
    for (let i = 0; i < 20 && !finished; i++) {
      await turn();
      // One piece leaving, at most one more waiting behind it.
      expect(out.writableLength).toBeLessThanOrEqual(2 * PIECE_BYTES);
      expect(pending.length).toBeLessThanOrEqual(1);
      flushOne();
    }
    await done;
    expect(finished).toBe(true);
    expect(pieces.map((p) => p.length)).toEqual([PIECE_BYTES, PIECE_BYTES, PIECE_BYTES, 10, 100]);
    expect(pieces.every((p) => p.buffer === shared[0]?.buffer || p.buffer === shared[1]?.buffer)).toBe(true);
    expect(Buffer.concat(pieces).equals(Buffer.concat(shared))).toBe(true);
  });

  it('stops when the response is closed while it waits, without ending it', async () => {
    const { out, pieces } = heldResponse();
    const done = writeBody(out as unknown as ServerResponse, [Buffer.alloc(4 * PIECE_BYTES)], PIECE_BYTES);
    await turn();
    out.destroy();
    await done;
    expect(pieces.length).toBe(1);
    expect(out.writableEnded).toBe(false);
  });

  it('hands a TLS socket small pieces (each is encrypted at once) and a plain one larger ones', () => {
    const over = (socket: object | null) => ({ socket }) as unknown as ServerResponse;
    expect(pieceBytesFor(over({ encrypted: true }))).toBe(TLS_PIECE_BYTES);
    expect(pieceBytesFor(over({}))).toBe(PLAIN_PIECE_BYTES);
    expect(pieceBytesFor(over(null))).toBe(PLAIN_PIECE_BYTES);
  });
});
