/**
 * Writes a pre-rendered body to a response a piece at a time, each piece once the one before
 * the previous one has left for the operating system.
 *
 * Handing the whole body over at once is cheap over plain TCP (the socket keeps references to
 * the shared buffers), but over TLS every byte handed over is encrypted at once into a buffer
 * of that connection: each client that does not read would hold an encrypted copy of the whole
 * body. Piece by piece, a TLS connection holds at most
 * two encrypted pieces beyond what the kernel buffers; the pieces are views of the
 * shared buffers, never copies.
 */
import type { ServerResponse } from 'node:http';

/**
 * Bytes handed to a TLS socket at a time: Node's default high-water mark for streams. Each
 * piece is encrypted into a buffer of the connection as soon as it is handed over.
 */
export const TLS_PIECE_BYTES = 64 * 1024;

/**
 * Bytes handed to a plain TCP socket at a time. The socket keeps references to the shared
 * buffers, no copy, so larger pieces cost no memory, only the time a client takes to finish
 * one (the kernel takes more only once half of its send buffer has drained, so progress shows
 * in steps of up to 2 MiB whatever the piece; see connections.ts). Each finished piece costs
 * the event loop a callback into JavaScript: 512 KiB is the size that holds the gzip scrape row
 * of `npm run bench` (docs/scaling.md, "Mechanisms and what each one buys").
 */
export const PLAIN_PIECE_BYTES = 512 * 1024;

/** The piece size for the socket under `out`. */
export function pieceBytesFor(out: ServerResponse): number {
  return (out.socket as { encrypted?: boolean } | null)?.encrypted ? TLS_PIECE_BYTES : PLAIN_PIECE_BYTES;
}

/**
 * Bytes handed over and not yet written out, at most, in pieces: one leaving while the next
 * waits behind it. Small chunks (the gzip body's header, tail and trailer) go out together.
 */
const OUTSTANDING_PIECES = 2;

/** The pieces of `chunks`: views of at most `pieceBytes`, never copies. */
function* piecesOf(chunks: readonly Buffer[], pieceBytes: number): Generator<Buffer> {
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += pieceBytes) yield chunk.subarray(at, at + pieceBytes);
  }
}

/**
 * Writes `chunks` to `out` in pieces of at most `pieceBytes` (default: by the socket, see
 * {@link pieceBytesFor}) and ends it. The next piece waits behind the one leaving, so the
 * socket never runs dry waiting for this loop to run again on a busy event loop, and at most two
 * pieces have been handed to TLS. A closed response stops the writing; the promise never rejects.
 */
export async function writeBody(
  out: ServerResponse,
  chunks: readonly Buffer[],
  pieceBytes = pieceBytesFor(out),
): Promise<void> {
  const limit = OUTSTANDING_PIECES * pieceBytes;
  let outstanding = 0;
  let wake: (() => void) | undefined;
  const resume = () => wake?.();
  out.once('close', resume);
  for (const piece of piecesOf(chunks, pieceBytes)) {
    while (outstanding > 0 && outstanding + piece.length > limit && !out.destroyed)
      await new Promise<void>((r) => (wake = r));
    if (out.destroyed) break;
    outstanding += piece.length;
    out.write(piece, () => {
      outstanding -= piece.length;
      resume();
    });
  }
  out.off('close', resume);
  if (!out.destroyed) out.end();
}
