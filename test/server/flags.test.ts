import { describe, expect, it } from 'vitest';
import { parseHttpLimits } from '../../src/server/flags.ts';
import { DEFAULT_HTTP_LIMITS } from '../../src/server/http.ts';

describe('parseHttpLimits', () => {
  it('fills in the defaults, a write deadline of one minute among them', () => {
    expect(parseHttpLimits({})).toEqual(DEFAULT_HTTP_LIMITS);
    expect(DEFAULT_HTTP_LIMITS.writeTimeoutMs).toBe(60_000);
    expect(DEFAULT_HTTP_LIMITS.stalledWriteMs).toBe(1_000);
  });

  it('reads --web.write-timeout as a duration and refuses anything else', () => {
    expect(parseHttpLimits({ 'web.write-timeout': '90s' })).toMatchObject({ writeTimeoutMs: 90_000 });
    expect(parseHttpLimits({ 'web.write-timeout': 'never' })).toBe(
      '--web.write-timeout must be a duration such as 10s or 2m, got "never"',
    );
    expect(parseHttpLimits({ 'web.write-timeout': '0s' })).toMatch(/^--web.write-timeout must be a duration/);
  });
});
