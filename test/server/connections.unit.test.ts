/**
 * The connection policy on fake sockets and manual timers: who makes room at the cap (the
 * oldest idle connection, else the one whose client stopped reading longest ago), the write
 * deadline, and the first-request deadline. The same over real sockets: connections.e2e.test.ts.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConnectionTracker } from '../../src/server/connections.ts';
import { manualTimers } from '../helpers/timers.ts';

class FakeSocket extends EventEmitter {
  static port = 40_000;
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = FakeSocket.port++;
  /** Bytes handed to the socket; minus writableLength, those written out. */
  bytesWritten = 0;
  writableLength = 0;
  destroyed = false;
  /** The server hands over `n` bytes that wait for the client to read. */
  pend(n: number): void {
    this.bytesWritten += n;
    this.writableLength += n;
  }
  /** The client reads, so `n` waiting bytes leave. */
  read(n: number): void {
    this.writableLength -= n;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

class FakeResponse extends EventEmitter {
  writableFinished = false;
  /** The whole response reached the operating system. */
  finish(): void {
    this.writableFinished = true;
    this.emit('close');
  }
}

function setup(limits: { maxConnections?: number; writeTimeoutMs?: number } = {}) {
  const server = new EventEmitter();
  const t = manualTimers();
  const tracker = new ConnectionTracker(server as unknown as Server, {
    maxConnections: limits.maxConnections ?? 3,
    firstRequestTimeoutMs: 10_000,
    writeTimeoutMs: limits.writeTimeoutMs ?? 60_000,
    stalledWriteMs: 1_000,
    timers: t.timers,
  });
  const connect = () => {
    const socket = new FakeSocket();
    server.emit('connection', socket);
    return socket;
  };
  /** A request on `socket`; the response is written until the test finishes it. */
  const request = (socket: FakeSocket) => {
    const res = new FakeResponse();
    server.emit('request', { socket }, res);
    return res;
  };
  return { tracker, connect, request, fire: t.fire };
}

describe('ConnectionTracker at the cap', () => {
  it('closes the oldest idle connection first, then the one stalled longest', () => {
    const { tracker, connect, request, fire } = setup();
    const idleOld = connect();
    request(idleOld).finish();
    const stalled = connect();
    request(stalled);
    stalled.pend(65_536);
    const idleNew = connect();
    fire(5_000);
    // A busy connection's progress is seen coarsely (half a kernel send buffer at a time), so
    // one that looks stalled may be a slow reader: idle ones, which cost nothing, go first.
    const first = connect();
    expect([idleOld.destroyed, stalled.destroyed, idleNew.destroyed, first.destroyed]).toEqual([
      true,
      false,
      false,
      false,
    ]);
    const second = connect();
    expect([stalled.destroyed, idleNew.destroyed, first.destroyed, second.destroyed]).toEqual([
      false,
      true,
      false,
      false,
    ]);
    request(first);
    request(second);
    const third = connect();
    expect([stalled.destroyed, third.destroyed]).toEqual([true, false]);
    expect([tracker.closed('evicted_stalled'), tracker.closed('evicted_idle')]).toEqual([1, 2]);
  });

  it('closes the one stalled longest; a reading one and a short stall are kept, and at worst it refuses', () => {
    const { tracker, connect, request, fire } = setup({ maxConnections: 4 });
    const [a, b, reading, computing] = [connect(), connect(), connect(), connect()];
    request(a);
    request(computing);
    a.pend(65_536);
    fire(500);
    // Stalls count from the client's last sign of reading: its request, or bytes written out.
    for (const s of [b, reading]) {
      request(s);
      s.pend(65_536);
    }
    fire(900);
    // Only `a` has waited 1 s for its client; `computing` has nothing buffered yet.
    expect(tracker.stalled()).toBe(1);
    fire(600);
    // The reading client wrote something out just now: it is not stalled, b and a are.
    reading.read(1_000);
    expect(tracker.stalled()).toBe(2);
    const first = connect();
    request(first);
    const second = connect();
    request(second);
    expect([a.destroyed, b.destroyed, reading.destroyed, computing.destroyed]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([first.destroyed, second.destroyed]).toEqual([false, false]);
    expect(tracker.closed('evicted_stalled')).toBe(2);
    expect(tracker.closed('evicted_idle') + tracker.closed('evicted_stalled')).toBe(2);
    // Every connection busy and none stalled long enough: the next one is refused.
    const third = connect();
    expect(third.destroyed).toBe(true);
    expect(tracker.closed('refused')).toBe(1);
    expect(tracker.open()).toBe(4);
  });
});

describe('ConnectionTracker deadlines', () => {
  it('closes a connection whose response is not written out within the write deadline', () => {
    const { tracker, connect, request, fire } = setup({ writeTimeoutMs: 30_000 });
    const slow = connect();
    request(slow);
    const fast = connect();
    const res = request(fast);
    fire(1_000);
    res.finish();
    fire(29_000);
    expect(slow.destroyed).toBe(true);
    expect(fast.destroyed).toBe(false);
    expect(tracker.closed('write_timeout')).toBe(1);
    expect(tracker.open()).toBe(1);
  });

  it('closes a connection that brings no request within the first-request deadline', () => {
    const { tracker, connect, fire } = setup();
    const silent = connect();
    fire(10_000);
    expect(silent.destroyed).toBe(true);
    expect(tracker.closed('first_request_timeout')).toBe(1);
  });
});
