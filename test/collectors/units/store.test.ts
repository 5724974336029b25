import { describe, expect, it } from 'vitest';
import { unitWindow } from '../../../src/collectors/units/stats.ts';
import { UnitStore } from '../../../src/collectors/units/store.ts';
import type { UnitRecord } from '../../../src/upstream/types.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

function u(time: number, over: Partial<UnitRecord> = {}): UnitRecord {
  return {
    stationId: A,
    slot: null,
    serial: `SN${time}`,
    time,
    direction: 'output',
    result: 'pass',
    unitType: null,
    mode: null,
    ...over,
  };
}

describe('UnitStore', () => {
  it('counts by direction and result, null as unknown, and distinct serials', () => {
    const s = new UnitStore();
    const recs = [
      u(1, { direction: 'input', result: null, serial: 'IN' }),
      u(2, { serial: 'SN1' }),
      u(3, { serial: 'SN1', result: 'fail' }),
      u(4, { result: null }),
    ];
    expect(s.add(recs)).toBe(4);
    expect(s.add(recs)).toBe(0);
    // Same time and serial, different slot: a different record.
    expect(s.add([u(4, { slot: '2', result: null })])).toBe(1);
    const rows = s.rowsOf(A);
    if (!rows) throw new Error('no rows');
    const w = unitWindow(rows, { from: 0, to: 10, resultOf: (c) => s.resultOf(c) });
    const counts = Object.fromEntries(
      [...w.records.values()].map((r) => [`${r.direction}/${r.result}`, r.count]),
    );
    expect(counts).toEqual({ 'input/unknown': 1, 'output/pass': 1, 'output/fail': 1, 'output/unknown': 2 });
    expect(w.serials).toBe(3);
  });

  it('keeps the latest unit time after eviction, until the station leaves', () => {
    const s = new UnitStore();
    s.add([u(5), u(7), u(6)]);
    s.evictBefore(100);
    expect(s.rowsOf(A)).toBeUndefined();
    expect(s.lastUnitTime(A)).toBe(7);
    s.retainStations(new Set([B]));
    expect(s.lastUnitTime(A)).toBeUndefined();
  });
});
