/** The observer's layer alone, over a fake next step and a fake clock. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamError } from '../../src/upstream/errors.ts';
import { type Answer, type Authorized, observing, type RequestEvent } from '../../src/upstream/layers.ts';

const sending: Authorized = { collector: 'units', endpoint: 'units', url: 'http://fake/units', token: 't' };

/** `performance.now()` moves 250 ms each time it is read. */
beforeEach(() => {
  let t = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (t += 250));
});
afterEach(() => {
  vi.restoreAllMocks();
});

function heard() {
  const requests: RequestEvent[] = [];
  const errors: UpstreamError[] = [];
  return {
    requests,
    errors,
    observer: { request: (e: RequestEvent) => requests.push(e), error: (e: UpstreamError) => errors.push(e) },
  };
}

describe('observing', () => {
  it('reports an answer once, when the decoder settles it, with its wire bytes and time', async () => {
    const { requests, errors, observer } = heard();
    const answer: Answer = { status: 200, bytes: Buffer.from('{}'), wireBytes: 40 };
    const send = observing(async () => answer, observer);
    const got = await send(sending);
    expect(requests).toEqual([]);
    got.settle?.();
    expect(requests).toEqual([
      { endpoint: 'units', collector: 'units', statusClass: '2xx', seconds: 0.25, bytes: 40 },
    ]);
    expect(errors).toEqual([]);
  });

  it('reports a body that does not decode as its reason, and hands on the error', async () => {
    const { requests, errors, observer } = heard();
    const send = observing(async () => ({ status: 200, bytes: Buffer.alloc(0), wireBytes: 7 }), observer);
    const bad = new UpstreamError('units', 'invalid_body', { message: 'units: bad' });
    (await send(sending)).settle?.(bad);
    expect(requests.map((r) => [r.statusClass, r.bytes])).toEqual([['invalid_body', 7]]);
    expect(errors).toEqual([bad]);
  });

  it('reports a failed attempt at once with the bytes that came, and rethrows it', async () => {
    const { requests, errors, observer } = heard();
    const e = new UpstreamError('units', 'status', { message: 'units: HTTP 503', status: 503 });
    e.receivedBytes = 12;
    const send = observing(async () => {
      throw e;
    }, observer);
    await expect(send(sending)).rejects.toBe(e);
    expect(requests).toEqual([
      { endpoint: 'units', collector: 'units', statusClass: '5xx', seconds: 0.25, bytes: 12 },
    ]);
    expect(errors).toEqual([e]);
  });
});
