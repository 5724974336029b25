import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.ts';
import { shardRequestRate } from '../../src/planning/budget.ts';

const config = (raw: Record<string, unknown>) =>
  configFromObject(
    { upstream: { base_url: 'http://fake', token: 't', max_requests_per_second: 10 }, ...raw },
    { env: {}, baseDir: '/' },
  );

describe('shardRequestRate', () => {
  it('divides the upstream request budget by the shard count', () => {
    expect(shardRequestRate(config({}), { index: 1, total: 4 })).toBe(2.5);
  });

  it('takes sharding.max_requests_per_second when it is set', () => {
    const c = config({ sharding: { max_requests_per_second: 3 } });
    expect(shardRequestRate(c, { index: 1, total: 4 })).toBe(3);
  });
});
