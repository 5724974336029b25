import { describe, expect, it } from 'vitest';
import { parseHttpLimits } from '../../src/server/flags.ts';
import { DEFAULT_HTTP_LIMITS } from '../../src/server/http.ts';

describe('parseHttpLimits', () => {
  it('fills in the defaults, a write deadline of one minute among them', () => {
    expect(parseHttpLimits({})).toEqual(DEFAULT_HTTP_LIMITS);
    expect(DEFAULT_HTTP_LIMITS.writeTimeoutMs).toBe(60_000);
    expect(DEFAULT_HTTP_LIMITS.stalledWriteMs).toBe(5_000);
  });

  it('reads --web.write-timeout as a duration and refuses anything else', () => {
    expect(parseHttpLimits({ 'web.write-timeout': '90s' })).toMatchObject({ writeTimeoutMs: 90_000 });
    expect(parseHttpLimits({ 'web.write-timeout': 'never' })).toBe(
      '--web.write-timeout must be a duration such as 10s or 2m, got "never"',
    );
    expect(parseHttpLimits({ 'web.write-timeout': '0s' })).toMatch(/^--web.write-timeout must be a duration/);
  });
});

describe('HTTP timeout flags', () => {
  it.each([
    'web.read-header-timeout',
    'web.request-timeout',
    'web.idle-timeout',
    'web.write-timeout',
  ] as const)('refuse --%s below 1s, naming the flag', (flag) => {
    // 0.3.0 accepted 1ms, a deadline no real client can meet.
    expect(parseHttpLimits({ [flag]: '1ms' })).toBe(`--${flag} must be at least 1s, got 1ms`);
    expect(parseHttpLimits({ [flag]: '999ms' })).toBe(`--${flag} must be at least 1s, got 999ms`);
  });

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
