import { describe, expect, it } from 'vitest';
import { statusClass } from '../../src/upstream/errors.ts';

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
