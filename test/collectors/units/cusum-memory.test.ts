/**
 * The units in flight a first poll holds: hours of history are evaluated in one update, and the
 * units settled long before its end are decided as the update goes, not all held until its end
 * (held at once, they were the first poll's peak of memory: issue 29).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UnitRecord } from '../../../src/upstream/types.ts';
import { MIN, START, unitCusumsRig } from '../../helpers/unit-cusums.ts';

/** The largest size any map of units in flight (values with `firstBad`) reached while `run` ran. */
async function mostInFlight(run: () => Promise<void>): Promise<number> {
  let most = 0;
  const set = Map.prototype.set;
  const spy = vi.spyOn(Map.prototype, 'set').mockImplementation(function (this: Map<unknown, unknown>, k, v) {
    const out = set.call(this, k, v);
    if (typeof v === 'object' && v !== null && 'firstBad' in v) most = Math.max(most, this.size);
    return out;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return most;
}

afterEach(() => vi.restoreAllMocks());

describe('UnitCusums in a first poll', () => {
  it('holds only the units of about settle plus one step in flight, not the whole history', async () => {
    const { topology, a, b, cusums, u, value } = unitCusumsRig();
    // 8 hours of history, a unit every 6 s through both stations: 4,800 units, 9,600 results.
    const unit = (i: number, stationId: string): UnitRecord =>
      u(0, {
        stationId,
        serial: `SN${i}`,
        time: START - 8 * 60 * MIN + i * 6_000 + (stationId === a.id ? 0 : 1_000),
        result: i % 17 === 0 ? 'fail' : 'pass',
      });
    for (let i = 0; i < 4_800; i++) {
      cusums.offer(unit(i, a.id));
      cusums.offer(unit(i, b.id));
    }
    const most = await mostInFlight(() => cusums.update(topology, START));
    // settle (20 min) is 200 units; one look every 2,048 results adds about 1,024 more.
    expect(most).toBeLessThan(1_500);
    expect(most).toBeGreaterThan(0);
    expect(value('station_line_unit_cusum_ratio', 'first_pass_yield')).toBeGreaterThanOrEqual(0);
  });
});
