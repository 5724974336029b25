/**
 * Writes a pre-rendered body a piece at a time: over TLS every byte handed over is encrypted at
 * once into the connection's buffer, so a client that does not read would hold an encrypted copy
 * of the whole body; piece by piece it holds two pieces at most.
 */
import type { ServerResponse } from 'node:http';

/** Bytes handed to a TLS socket at a time: Node's default high-water mark for streams. */
export const TLS_PIECE_BYTES = 64 * 1024;

/**
 * Bytes handed to a plain TCP socket at a time: the socket keeps references, no copy, and each
 * piece costs a callback; 512 KiB holds `npm run bench`'s gzip scrape row (docs/scaling.md).
 */
export const PLAIN_PIECE_BYTES = 512 * 1024;

/** The piece size for the socket under `out`. */
export function pieceBytesFor(out: ServerResponse): number {
  return (out.socket as { encrypted?: boolean } | null)?.encrypted ? TLS_PIECE_BYTES : PLAIN_PIECE_BYTES;
}

/** Pieces handed over and not yet written out: one leaving while the next waits behind it. */
const OUTSTANDING_PIECES = 2;

function* piecesOf(chunks: readonly Buffer[], pieceBytes: number): Generator<Buffer> {
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += pieceBytes) yield chunk.subarray(at, at + pieceBytes);
  }
}

/**
 * Writes `chunks` to `out` in pieces and ends it; a piece waits behind the one leaving, so the
 * socket never runs dry on a busy event loop. A closed response stops it; never rejects.
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
