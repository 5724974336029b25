/**
 * The collector contract: every dependency a job gets is required. The type checks below are
 * checked by `tsc --noEmit` (a `@ts-expect-error` that finds no error fails it).
 */
import { describe, expect, it } from 'vitest';
import { ActivityBoard } from '../../src/collectors/activity.ts';
import { type CollectorContext, standaloneDependencies } from '../../src/collectors/collector.ts';
import { RefusedStations } from '../../src/records/refused.ts';
import { UNSHARDED } from '../../src/sharding/shard.ts';
import { jobContext } from '../helpers/job-context.ts';

describe('CollectorContext', () => {
  it('requires the links between collectors', () => {
    const { activity: _activity, ...withoutActivity } = jobContext({});
    // @ts-expect-error: unit activity is required (the summary job reads what the units job writes)
    const missing: CollectorContext = withoutActivity;
    const { refused: _refused, ...withoutRefused } = jobContext({});
    // @ts-expect-error: refused stations are required
    const missingRefused: CollectorContext = withoutRefused;
    expect([missing, missingRefused]).toHaveLength(2);
  });

  it('gives a job run alone dependencies of its own', () => {
    const deps = standaloneDependencies();
    expect(deps.shard).toBe(UNSHARDED);
    expect(deps.refused).toBeInstanceOf(RefusedStations);
    expect(deps.activity).toBeInstanceOf(ActivityBoard);
    // Two jobs run alone share nothing.
    expect(standaloneDependencies().activity).not.toBe(deps.activity);
    expect(() => deps.offerLastUnitTime(() => undefined)).not.toThrow();
  });
});
