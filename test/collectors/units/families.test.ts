import { describe, expect, it } from 'vitest';
import { STATIONS_PER_SLICE, unitFamilies } from '../../../src/collectors/units/families.ts';
import { LabelSet } from '../../../src/exposition/model.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { turnsDuring } from '../../helpers/loop-turns.ts';

const yielder = new LoopYielder();

const station = LabelSet.of({ station: 'S' });
const counts = (rows: Array<[string, string, number]>, serials: number) => ({
  records: new Map(
    rows.map(([direction, result, count]) => [`${direction}\u0000${result}`, { direction, result, count }]),
  ),
  serials,
});

describe('unitFamilies', () => {
  it('exports every direction and result seen in any window in every window, 0 where absent', async () => {
    const fams = await unitFamilies(
      [
        {
          station,
          lastUnitTime: 2_000,
          windows: [
            { window: '1h', counts: counts([['output', 'pass', 3]], 2) },
            {
              window: '8h',
              counts: counts(
                [
                  ['output', 'pass', 9],
                  ['input', 'unknown', 4],
                ],
                5,
              ),
            },
          ],
        },
      ],
      { stations: [], countersFrom: 0, yielder },
    );
    const [records, serials, last] = fams.map((f) => f.samples.map((s) => `${s.labels.text} ${s.value}`));
    expect(records).toEqual([
      'station="S",direction="input",result="unknown",window="1h" 0',
      'station="S",direction="output",result="pass",window="1h" 3',
      'station="S",direction="input",result="unknown",window="8h" 4',
      'station="S",direction="output",result="pass",window="8h" 9',
    ]);
    expect(serials).toEqual(['station="S",window="1h" 2', 'station="S",window="8h" 5']);
    expect(last).toEqual(['station="S" 2']);
  });

  it('leaves out the last unit time of a station that never had a unit', async () => {
    const fams = await unitFamilies([{ station, windows: [{ window: '1h', counts: counts([], 0) }] }], {
      stations: [],
      countersFrom: 0,
      yielder,
    });
    // records, serials, last unit time, future and late records (no stations given: none).
    expect(fams.map((f) => f.samples.length)).toEqual([0, 1, 0, 0, 0]);
    expect(fams.map((f) => f.desc.name)).toEqual([
      'station_unit_records',
      'station_unit_serials',
      'station_last_unit_timestamp_seconds',
      'station_unit_future_records_total',
      'station_unit_late_records_total',
    ]);
  });

  it('builds its series in slices of stations, yielding to the event loop between them', async () => {
    const results = Array.from({ length: 3 * STATIONS_PER_SLICE + 1 }, (_, i) => ({
      station: LabelSet.of({ station: `S${i}` }),
      windows: [{ window: '1h', counts: counts([['output', 'pass', i]], 1) }],
    }));
    const building = unitFamilies(results, { stations: [], countersFrom: 0, yielder: new LoopYielder() });
    const turns = await turnsDuring(building);
    const fams = await building;
    expect(fams[0]!.samples.map((s) => s.value)).toEqual(results.map((_, i) => i));
    // Four slices: the event loop turned between them.
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
