/**
 * The minimum of the HTTP timeout flags. Kept apart from flags.test.ts, which another change
 * adds at the same time; the two can be joined.
 */
import { describe, expect, it } from 'vitest';
import { parseHttpLimits } from '../../src/server/flags.ts';

describe('HTTP timeout flags', () => {
  it.each(['web.read-header-timeout', 'web.request-timeout', 'web.idle-timeout'] as const)(
    'refuse --%s below 1s, naming the flag',
    (flag) => {
      // 0.3.0 accepted 1ms, a deadline no real client can meet.
      expect(parseHttpLimits({ [flag]: '1ms' })).toBe(`--${flag} must be at least 1s, got 1ms`);
      expect(parseHttpLimits({ [flag]: '999ms' })).toBe(`--${flag} must be at least 1s, got 999ms`);
    },
  );

  it('accept exactly 1s', () => {
    expect(
      parseHttpLimits({
        'web.read-header-timeout': '1s',
        'web.request-timeout': '1s',
        'web.idle-timeout': '1s',
      }),
    ).toMatchObject({ headerTimeoutMs: 1000, requestTimeoutMs: 1000, idleTimeoutMs: 1000 });
  });
});
