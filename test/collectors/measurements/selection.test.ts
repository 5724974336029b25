import { describe, expect, it } from 'vitest';
import type { MeasurementResult } from '../../../src/collectors/measurements/families.ts';
import { selectedFamiliesInTurns } from '../../../src/collectors/measurements/selection.ts';
import { LabelSet } from '../../../src/exposition/model.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';

describe('selectedFamiliesInTurns', () => {
  const stats = { samples: 3, nonNumeric: 0, passed: 0, failed: 0, mean: 1, min: 0, max: 2, stddev: 1 };
  // Enough results for several slices; station i measures `vbat` in one or two slots.
  const results: MeasurementResult[] = Array.from({ length: 500 }, (_, i) => {
    const station = LabelSet.of({ station: `s${Math.floor(i / 2)}`, station_id: 'a'.repeat(24) });
    return {
      station,
      name: 'vbat',
      slot: Math.floor(i / 2) % 3 === 0 ? `${i % 2}` : `0`,
      unit: 'V',
      minSamples: 2,
      limits: { time: 0, upper: 3 },
      attributes: false,
      windows: [
        { window: '1h', stats },
        { window: '24h', stats: { ...stats, samples: i } },
      ],
    };
  }).filter((r, i) => r.slot === '0' || i % 2 === 1 || Math.floor(i / 2) % 3 === 0);
  const selection = (bySlot: boolean) => ({
    statistics: {
      default: ['mean' as const, 'samples' as const],
      windows: new Map([['24h', ['samples' as const]]]),
    },
    bySlot,
  });

  it('gives the same families in slices as in one piece, yielding between slices', async () => {
    const stations = [{ station: LabelSet.of({ station: 's0' }), future: 2, late: 1 }];
    for (const bySlot of [true, false]) {
      let slices = 0;
      const counting = new (class extends LoopYielder {
        override forEachSlice<T>(items: readonly T[], size: number, fn: (slice: readonly T[]) => void) {
          return super.forEachSlice(items, size, (slice) => {
            slices++;
            fn(slice);
          });
        }
      })();
      const opts = { selection: selection(bySlot), windows: ['1h', '24h'], stations };
      const sliced = await selectedFamiliesInTurns(results, opts, counting);
      const whole = new (class extends LoopYielder {
        override async forEachSlice<T>(
          items: readonly T[],
          _size: number,
          fn: (slice: readonly T[]) => void,
        ) {
          fn(items);
        }
      })();
      expect(sliced).toEqual(await selectedFamiliesInTurns(results, opts, whole));
      expect(slices).toBeGreaterThan(1);
      const mean = sliced.find((f) => f.desc.name === 'station_measurement_window_mean');
      expect(mean?.samples.every((s) => s.labels.text.endsWith('window="1h"'))).toBe(true);
    }
  });
});
