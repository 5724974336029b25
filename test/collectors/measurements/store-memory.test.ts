import { describe, expect, it } from 'vitest';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';

const m = (time: number, over: Partial<MeasurementRecord> = {}): MeasurementRecord => ({
  stationId: A,
  slot: null,
  serial: `L1-${String(time).padStart(8, '0')}`,
  time,
  name: 'v',
  raw: '1.5',
  value: 1.5,
  unit: 'V',
  type: 'float',
  upper: 2,
  lower: 1,
  mode: null,
  ...over,
});

describe('MeasurementStore memory', () => {
  it('holds a record in 16 bytes of columns (time, serial hash, value) plus a sixteenth of room', () => {
    const s = new MeasurementStore();
    for (let t = 0; t < 1000; t++) s.add([m(1_700_000_000_000 + t * 60_000)]);
    expect(s.size()).toBe(1000);
    expect(s.bytes() / s.size()).toBeLessThanOrEqual(16 * (1 + 1 / 16) + 1);
    expect(s.bytes()).toBeGreaterThanOrEqual(16 * 1000);
  });

  it('gives the room back when records are evicted', () => {
    const s = new MeasurementStore();
    const t0 = 1_700_000_000_000;
    s.add(Array.from({ length: 1000 }, (_, t) => m(t0 + t)));
    s.evictBefore(t0 + 900);
    expect(s.size()).toBe(100);
    expect(s.bytes()).toBeLessThanOrEqual(16 * 120);
  });

  it('adds a byte a record only while limits or outcomes differ between held records', () => {
    const s = new MeasurementStore();
    const t0 = 1_700_000_000_000;
    s.add(Array.from({ length: 100 }, (_, t) => m(t0 + t, t % 2 ? {} : { upper: 3 })));
    // 17 bytes a row of room, and room for 110 rows.
    expect(s.bytes() / 100).toBeLessThanOrEqual(17 * 1.1 + 1);
  });
});
