/**
 * Writes a pre-rendered body to a response a piece at a time, each piece once the previous
 * one has left for the operating system.
 *
 * Handing the whole body over at once is cheap over plain TCP (the socket keeps references to
 * the shared buffers), but over TLS every byte handed over is encrypted at once into a buffer
 * of that connection: each client that does not read would hold an encrypted copy of the whole
 * body. Piece by piece, a connection holds at most
 * one piece, encrypted or not, beyond what the kernel buffers; the pieces are views of the
 * shared buffers, never copies. The wait between pieces is also what tells the connection cap
 * a reading client (its buffer keeps emptying) from one that stopped reading.
 */
import type { ServerResponse } from 'node:http';

/** Bytes handed to the socket at a time: Node's default high-water mark for streams. */
export const PIECE_BYTES = 64 * 1024;

/** Resolves when `out` can take more data, or when it closed (the client left or was dropped). */
function drained(out: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (out.destroyed) return resolve();
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * Writes `chunks` to `out` in pieces of at most {@link PIECE_BYTES} and ends it. A closed
 * response stops the writing; the promise never rejects.
 */
export async function writeBody(out: ServerResponse, chunks: readonly Buffer[]): Promise<void> {
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
      if (out.destroyed) return;
      if (!out.write(chunk.subarray(at, at + PIECE_BYTES))) await drained(out);
    }
  }
  if (!out.destroyed) out.end();
}
