import { describe, expect, it } from 'vitest';
import { MAX_ERROR_MESSAGE, MAX_UPSTREAM_TEXT, UpstreamError } from '../../src/upstream/errors.ts';
import { isStaleConnection } from '../../src/upstream/layers.ts';
import { classifyFailure, statusError } from '../../src/upstream/transport.ts';

describe('statusError', () => {
  it('carries the documented error code and message', () => {
    const e = statusError(
      'units',
      400,
      JSON.stringify({ error: { code: 'BAD_RANGE', message: 'from after to' } }),
    );
    expect(e).toMatchObject({
      reason: 'status',
      status: 400,
      code: 'BAD_RANGE',
      upstreamMessage: 'from after to',
    });
    expect(e.message).toBe('units: HTTP 400 (BAD_RANGE: from after to)');
  });

  it('takes a numeric code as text', () => {
    expect(statusError('sites', 503, '{"error":{"code":17}}').message).toBe('sites: HTTP 503 (17)');
  });

  it('keeps a 20 MB upstream message and code to a bounded length, both visible', () => {
    const huge = 'm'.repeat(20 * 1024 * 1024);
    const e = statusError('units', 500, JSON.stringify({ error: { code: 'c'.repeat(5000), message: huge } }));
    expect(e.upstreamMessage?.length).toBeLessThanOrEqual(MAX_UPSTREAM_TEXT);
    expect(e.upstreamMessage).toMatch(/^m+\.\.\. \[\d+ characters cut\]$/);
    expect(e.code).toMatch(/^c+\.\.\. \[\d+ characters cut\]$/);
    // The code is cut before the message is composed: the upstream's message still shows.
    expect(e.message).toContain('mmmm');
    expect(e.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
  });

  it('never echoes a body that is not the error shape', () => {
    const e = statusError('metrics', 502, '<html><script>alert(1)</script></html>');
    expect(e.message).toBe('metrics: HTTP 502');
    expect(e.code).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  const deadline = { fired: false, ms: 5000 };

  it('keeps an UpstreamError as it is', () => {
    const original = new UpstreamError('units', 'too_large', { message: 'big', status: 200 });
    expect(classifyFailure('units', original, { timeout: { fired: true, ms: 1 } })).toBe(original);
  });

  it('names a fired deadline a timeout, with the deadline in the message', () => {
    const e = classifyFailure('metrics', new Error('aborted'), {
      timeout: { fired: true, ms: 5000 },
      status: 200,
    });
    expect(e).toMatchObject({
      reason: 'timeout',
      status: 200,
      message: 'metrics: no complete answer within 5000 ms',
    });
  });

  it('names anything else a network failure and keeps the cause only when no status came', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const before = classifyFailure('sites', cause, { timeout: deadline });
    expect(before).toMatchObject({ reason: 'network', message: 'sites: request failed: socket hang up' });
    expect(isStaleConnection(before.cause)).toBe(true);
    const after = classifyFailure('sites', cause, { timeout: deadline, status: 200 });
    expect(after.cause).toBeUndefined();
  });
});

describe('isStaleConnection', () => {
  it('knows the codes of a connection closed under a request', () => {
    for (const code of ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']) {
      expect(isStaleConnection({ code })).toBe(true);
    }
    expect(isStaleConnection({ code: 'ECONNREFUSED' })).toBe(false);
    expect(isStaleConnection(undefined)).toBe(false);
    expect(isStaleConnection('ECONNRESET')).toBe(false);
  });
});
