import { describe, expect, it } from 'vitest';
import {
  boundText,
  MAX_ERROR_MESSAGE,
  MAX_UPSTREAM_TEXT,
  statusClass,
  UpstreamError,
} from '../../src/upstream/errors.ts';

describe('statusClass', () => {
  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [301, '3xx'],
    [403, '4xx'],
    [503, '5xx'],
    [101, 'network'],
  ])('%i -> %s', (status, cls) => {
    expect(statusClass(status)).toBe(cls);
  });

  it('names the failure reason when there is no usable answer', () => {
    expect(statusClass(undefined)).toBe('network');
    expect(statusClass(undefined, 'timeout')).toBe('timeout');
    expect(statusClass(200, 'invalid_body')).toBe('invalid_body');
    expect(statusClass(500, 'status')).toBe('5xx');
  });
});

describe('bounded texts', () => {
  it('cuts a long text with a marker saying how much was cut', () => {
    expect(boundText('abc', 40)).toBe('abc');
    const cut = boundText('a'.repeat(100), 40);
    expect(cut).toBe(`${'a'.repeat(16)}... [84 characters cut]`);
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(boundText(cut, 40)).toBe(cut);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(16)}\u{1F600}${'b'.repeat(81)}`;
    expect(boundText(text, 40)).toBe(`${'a'.repeat(16)}... [83 characters cut]`);
  });

  it('keeps an error of any size to a bounded message, code and upstream message', () => {
    const huge = 'x'.repeat(20 * 1024 * 1024);
    const e = new UpstreamError('units', 'status', {
      message: `units: HTTP 500 (${huge})`,
      status: 500,
      code: huge,
      upstreamMessage: huge,
    });
    expect(e.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
    expect(e.message).toMatch(/characters cut\]$/);
    expect(e.code?.length).toBeLessThanOrEqual(MAX_UPSTREAM_TEXT);
    expect(e.upstreamMessage?.length).toBeLessThanOrEqual(MAX_UPSTREAM_TEXT);
  });
});
