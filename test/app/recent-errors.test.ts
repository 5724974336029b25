import { describe, expect, it } from 'vitest';
import { RecentErrors } from '../../src/app/recent-errors.ts';
import { MAX_ERROR_MESSAGE, UpstreamError } from '../../src/upstream/errors.ts';

describe('recent errors', () => {
  it('keeps 50 errors of a 1 MB upstream message each to a bounded size', () => {
    const errors = new RecentErrors(50, () => 0);
    const huge = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 60; i++) {
      errors.record(
        new UpstreamError('units', 'status', {
          message: `units: HTTP 500 (${huge})`,
          status: 500,
          upstreamMessage: huge,
        }),
      );
    }
    const kept = errors.recent();
    expect(kept).toHaveLength(50);
    const chars = kept.reduce((n, e) => n + e.message.length, 0);
    expect(chars).toBeLessThanOrEqual(50 * MAX_ERROR_MESSAGE);
    expect(errors.kinds()[0]?.last.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
  });

  it('bounds a message even when the error did not (any object in the shape of one)', () => {
    const errors = new RecentErrors(2, () => 0);
    const loose = { endpoint: 'units', reason: 'status', status: 500, message: 'y'.repeat(100_000) };
    errors.record(loose as unknown as UpstreamError);
    expect(errors.recent()[0]?.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
  });
});
