/**
 * The /metrics body goes out a piece at a time, each piece a view of the shared buffers, the
 * next one only once the previous one has left: a client that does not read holds one piece.
 */
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PIECE_BYTES, writeBody } from '../../src/server/write-body.ts';

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
  it('hands over one piece at a time, each a view of the shared buffers, and ends', async () => {
    const shared = [Buffer.alloc(3 * PIECE_BYTES + 10, 1), Buffer.alloc(100, 2)];
    const { out, pieces, pending, flushOne } = heldResponse();
    let finished = false;
    out.on('finish', () => (finished = true));
    const done = writeBody(out as unknown as ServerResponse, shared);
    for (let i = 0; i < 20 && !finished; i++) {
      await turn();
      // The writer waits for the piece in flight before it hands over the next one.
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
    const done = writeBody(out as unknown as ServerResponse, [Buffer.alloc(4 * PIECE_BYTES)]);
    await turn();
    out.destroy();
    await done;
    expect(pieces.length).toBe(1);
    expect(out.writableEnded).toBe(false);
  });
});
