/**
 * Bounds the server's open connections. A connection must bring its first complete request
 * within the header timeout (Node's own timeout only starts once bytes arrive, so a silent
 * socket would otherwise stay forever). At the cap, the oldest connection with no request in
 * flight makes room, so that idle or slow-header sockets cannot lock a scrape out.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Entry {
  readonly socket: Socket;
  inFlight: number;
  served: number;
  timer: NodeJS.Timeout | undefined;
}

/** Live counts, for tests and logs. */
export interface ConnectionStats {
  open(): number;
  /** Connections closed to make room at the cap. */
  evicted(): number;
  /** Connections refused because every open one was busy. */
  refused(): number;
}

// A connection is known by its peer address: the TLS socket of a request and the TCP socket
// under it share it, and both are public API.
const keyOf = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;

/** Installs the tracking on `server` (HTTP or HTTPS). */
export function trackConnections(
  server: HttpServer,
  opts: { readonly maxConnections: number; readonly firstRequestTimeoutMs: number },
): ConnectionStats {
  const open = new Map<string, Entry>();
  let evicted = 0;
  let refused = 0;

  const makeRoom = (): boolean => {
    for (const [key, entry] of open) {
      if (entry.inFlight === 0) {
        evicted++;
        // Out of the table at once: several connections arriving in one tick must each evict another.
        open.delete(key);
        clearTimeout(entry.timer);
        entry.socket.destroy();
        return true;
      }
    }
    return false;
  };

  // Prepended, so that a refused socket is gone before TLS or HTTP sets anything up on it.
  server.prependListener('connection', (socket: Socket) => {
    if (open.size >= opts.maxConnections && !makeRoom()) {
      refused++;
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    const entry: Entry = { socket, inFlight: 0, served: 0, timer: undefined };
    entry.timer = setTimeout(() => {
      if (entry.served === 0 && entry.inFlight === 0) socket.destroy();
    }, opts.firstRequestTimeoutMs);
    entry.timer.unref();
    open.set(key, entry);
    socket.once('close', () => {
      clearTimeout(entry.timer);
      if (open.get(key) === entry) open.delete(key);
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const entry = open.get(keyOf(req.socket));
    if (!entry) return;
    entry.inFlight++;
    clearTimeout(entry.timer);
    res.once('close', () => {
      entry.inFlight--;
      entry.served++;
    });
  });

  return { open: () => open.size, evicted: () => evicted, refused: () => refused };
}
