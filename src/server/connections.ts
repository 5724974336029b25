/**
 * Bounds the server's open connections, so that neither idle, slow-header nor non-reading
 * sockets can lock a scrape out. A first request must come within its timeout (Node's starts only
 * once bytes arrive); a response must be handed to the OS within the write deadline (Go's
 * `WriteTimeout`); at the cap a new connection evicts the oldest idle one, else the longest
 * stalled one, and only when every one is busy and reading is it refused.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { LoopTimers } from '../scheduler/loop.ts';

/** Every reason the server closes a connection for, in the order the self-metric lists them. */
export const CLOSE_REASONS = [
  /** No complete first request within the header timeout. */
  'first_request_timeout',
  /** A response not written out within the write deadline. */
  'write_timeout',
  /** Closed at the cap to make room: no request in flight. */
  'evicted_idle',
  /** Closed at the cap to make room: its client had stopped reading. */
  'evicted_stalled',
  /** A new connection refused at the cap: every open one was busy and reading. */
  'refused',
] as const;

/** Why the server closed a connection (the `reason` label of the self-metric). */
export type CloseReason = (typeof CLOSE_REASONS)[number];

/** Live counts, for the self-metrics and logs. */
export interface ConnectionStats {
  open(): number;
  /** Closed for `reason` since the server started. */
  closed(reason: CloseReason): number;
  /** Open connections whose response has waited longer than the stall limit. */
  stalled(): number;
}

/** Options of {@link ConnectionTracker}. */
export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly firstRequestTimeoutMs: number;
  /** From a request's arrival to the last byte of its response handed to the OS. */
  readonly writeTimeoutMs: number;
  /** How long a response may wait for the client to read before it counts as stalled. */
  readonly stalledWriteMs: number;
  readonly timers: LoopTimers;
}

/** Real timers that do not keep the process alive, and a monotonic clock. */
export const REAL_CONNECTION_TIMERS: LoopTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Entry {
  readonly key: string;
  /** The TCP socket (under TLS, the encrypted side). */
  readonly socket: Socket;
  /** The socket responses are written to: the TLS socket under TLS, else the TCP socket. */
  writer: Socket | undefined;
  inFlight: number;
  served: number;
  /** The first-request deadline. */
  timer: unknown;
  /** Bytes handed to the OS so far, when last looked at. */
  flushed: number;
  /** When the client last showed it reads. */
  progressMs: number;
}

const flushedBytes = (socket: Socket) => (socket.bytesWritten ?? 0) - socket.writableLength;

// A connection is known by its peer address: the TLS socket of a request and the TCP socket
// under it share it, and both are public API.
const keyOf = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;

/** Tracks the connections of one server (HTTP or HTTPS) and enforces {@link ConnectionLimits}. */
export class ConnectionTracker implements ConnectionStats {
  readonly #open = new Map<string, Entry>();
  readonly #closed = new Map<CloseReason, number>(CLOSE_REASONS.map((r) => [r, 0]));
  readonly #limits: ConnectionLimits;
  readonly #timers: LoopTimers;

  constructor(server: HttpServer, limits: ConnectionLimits) {
    this.#limits = limits;
    this.#timers = limits.timers;
    // Prepended, so that a refused socket is gone before TLS or HTTP sets anything up on it.
    server.prependListener('connection', (socket: Socket) => this.#onConnection(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(req, res));
  }

  open(): number {
    return this.#open.size;
  }

  closed(reason: CloseReason): number {
    return this.#closed.get(reason) ?? 0;
  }

  stalled(): number {
    const now = this.#timers.now();
    let n = 0;
    for (const entry of this.#open.values()) if (this.#isStalled(entry, now)) n++;
    return n;
  }

  #count(reason: CloseReason): void {
    this.#closed.set(reason, this.closed(reason) + 1);
  }

  #onConnection(socket: Socket): void {
    const now = this.#timers.now();
    for (const entry of this.#open.values()) this.#look(entry, now);
    if (this.#open.size >= this.#limits.maxConnections && !this.#makeRoom()) {
      this.#count('refused');
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    const entry: Entry = {
      key,
      socket,
      writer: undefined,
      inFlight: 0,
      served: 0,
      timer: undefined,
      flushed: 0,
      progressMs: now,
    };
    entry.timer = this.#timers.setTimeout(() => {
      if (entry.served === 0 && entry.inFlight === 0) this.#close(entry, 'first_request_timeout');
    }, this.#limits.firstRequestTimeoutMs);
    this.#open.set(key, entry);
    socket.once('close', () => {
      this.#timers.clearTimeout(entry.timer);
      if (this.#open.get(key) === entry) this.#open.delete(key);
    });
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const entry = this.#open.get(keyOf(req.socket));
    if (!entry) return;
    entry.writer ??= req.socket;
    entry.inFlight++;
    entry.flushed = flushedBytes(entry.writer);
    entry.progressMs = this.#timers.now();
    this.#timers.clearTimeout(entry.timer);
    const deadline = this.#timers.setTimeout(() => {
      if (!res.writableFinished && this.#open.get(entry.key) === entry) this.#close(entry, 'write_timeout');
    }, this.#limits.writeTimeoutMs);
    res.once('close', () => {
      this.#timers.clearTimeout(deadline);
      entry.inFlight--;
      entry.served++;
    });
  }

  /**
   * Looked at on every new connection. The kernel takes more of a body only once half the send
   * buffer drained: a reading client progresses in steps of up to 2 MiB (every 4 s at 512 KiB/s),
   * and the stall limit's default (http.ts) is set above that.
   */
  #look(entry: Entry, now: number): void {
    if (entry.writer === undefined) return;
    const flushed = flushedBytes(entry.writer);
    if (flushed === entry.flushed) return;
    entry.flushed = flushed;
    entry.progressMs = now;
  }

  #isStalled(entry: Entry, now: number): boolean {
    const writer = entry.writer;
    if (entry.inFlight === 0 || writer === undefined) return false;
    this.#look(entry, now);
    return writer.writableLength > 0 && now - entry.progressMs >= this.#limits.stalledWriteMs;
  }

  /**
   * Idle connections go first: a busy one's progress is seen only coarsely (a client reading
   * 1 MiB/s showed none for 2 s and was closed as stalled mid-scrape), and Prometheus reconnects
   * for the next scrape. The table is in order of arrival.
   */
  #makeRoom(): boolean {
    for (const entry of this.#open.values())
      if (entry.inFlight === 0) return this.#close(entry, 'evicted_idle');
    const now = this.#timers.now();
    let stalled: Entry | undefined;
    for (const entry of this.#open.values()) {
      if (this.#isStalled(entry, now) && (stalled === undefined || entry.progressMs < stalled.progressMs))
        stalled = entry;
    }
    return stalled !== undefined && this.#close(stalled, 'evicted_stalled');
  }

  #close(entry: Entry, reason: CloseReason): true {
    this.#count(reason);
    // Out of the table at once: several connections arriving in one tick must each evict another.
    if (this.#open.get(entry.key) === entry) this.#open.delete(entry.key);
    this.#timers.clearTimeout(entry.timer);
    entry.writer?.destroy();
    entry.socket.destroy();
    return true;
  }
}
