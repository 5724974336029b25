import { describe, expect, it } from 'vitest';
import { UnitStore } from '../../../src/collectors/units/store.ts';
import type { UnitRecord } from '../../../src/upstream/types.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';

describe('UnitStore memory', () => {
  it('holds a record in 13 bytes of columns (time, 53-bit serial hash, code) plus a sixteenth of room', () => {
    const s = new UnitStore();
    const t0 = 1_700_000_000_000;
    for (let k = 0; k < 500; k++) {
      const base = { stationId: A, slot: null, serial: `L1-${k}`, unitType: null, mode: null };
      s.add([
        { ...base, time: t0 + k * 60_000, direction: 'input', result: null },
        { ...base, time: t0 + k * 60_000 + 30_000, direction: 'output', result: k % 10 ? 'pass' : 'fail' },
      ] satisfies UnitRecord[]);
    }
    expect(s.size()).toBe(1000);
    expect(s.bytes() / s.size()).toBeLessThanOrEqual(13 * (1 + 1 / 16) + 1);
    s.evictBefore(Number.POSITIVE_INFINITY);
    expect(s.bytes()).toBe(0);
  });
});
