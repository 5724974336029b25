import { describe, expect, it } from 'vitest';
import { UnitsJob } from '../../../src/collectors/units/job.ts';
import type { UnitsQuery } from '../../../src/upstream/endpoints.ts';
import type { UnitRecord } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([2]);
const [a, b] = plant.lines[0]?.elements.map((e) => e.id) ?? [];
const topology = topologyOf([plant]);

const unit = (stationId: string, minutesAgo: number, over: Partial<UnitRecord>): UnitRecord => ({
  stationId,
  slot: null,
  serial: `SN${minutesAgo}`,
  time: T0 - minutesAgo * MIN,
  direction: 'output',
  result: 'pass',
  unitType: null,
  mode: null,
  ...over,
});

describe('units job', () => {
  it('counts records by direction and result per window, and exports every station', async () => {
    const held = [
      unit(a ?? '', 30, { direction: 'input', result: null, serial: 'X' }),
      unit(a ?? '', 29, { serial: 'X' }),
      unit(a ?? '', 5, { serial: 'Y', result: 'fail' }),
    ];
    const ctx = jobContext(
      { windows: ['15m', '1h'] },
      {
        units: (q: UnitsQuery) =>
          held.filter((r) => r.time >= (q.from?.getTime() ?? 0) && r.time < (q.to?.getTime() ?? 0)),
      },
    );
    const out = await new UnitsJob(ctx).poll({ topology, now: new Date(T0) });
    expect(out.failures).toBe(0);
    expect((ctx.client.calls[0]?.query as UnitsQuery | undefined)?.directions).toEqual(['input', 'output']);
    const s = samplesOf(out.families);
    const get = (name: string, station: string, extra: string) =>
      [...s].find(
        ([k]) => k.startsWith(`${name}{`) && k.includes(`station_id="${station}"`) && k.includes(extra),
      )?.[1];
    expect(get('station_unit_records', a ?? '', 'direction="output",result="fail",window="15m"')).toBe(1);
    // A kind seen in any window is exported in every window, 0 where absent.
    expect(get('station_unit_records', a ?? '', 'direction="output",result="pass",window="15m"')).toBe(0);
    expect(get('station_unit_records', a ?? '', 'direction="input",result="unknown",window="1h"')).toBe(1);
    expect(get('station_unit_serials', a ?? '', 'window="1h"')).toBe(2);
    // A station without records still has its serial count, at 0, and no last-unit time.
    expect(get('station_unit_serials', b ?? '', 'window="15m"')).toBe(0);
    expect(get('station_last_unit_timestamp_seconds', b ?? '', '')).toBeUndefined();
    expect(get('station_last_unit_timestamp_seconds', a ?? '', '')).toBe((T0 - 5 * MIN) / 1000);
  });
});

describe('units job: records updated in place', () => {
  it('replaces the earlier version of a record whose result is filled in later, instead of counting it twice', async () => {
    const held = [
      unit(a ?? '', 10, { serial: 'U1', result: null }),
      unit(a ?? '', 8, { serial: 'U2', slot: '1' }),
    ];
    const ctx = jobContext(
      { windows: ['1h'], units: { overlap: '15m' } },
      {
        units: (q: UnitsQuery) =>
          held.filter((r) => r.time >= (q.from?.getTime() ?? 0) && r.time < (q.to?.getTime() ?? 0)),
      },
    );
    const job = new UnitsJob(ctx);
    await job.poll({ topology, now: new Date(T0) });
    // The upstream now holds U1 with its result; U2 keeps its slot and result.
    held[0] = unit(a ?? '', 10, { serial: 'U1', result: 'fail' });
    const s = samplesOf((await job.poll({ topology, now: new Date(T0 + MIN) })).families);
    const get = (extra: string) =>
      [...s].find(
        ([k]) =>
          k.startsWith('station_unit_records{') && k.includes(`station_id="${a}"`) && k.includes(extra),
      )?.[1];
    // Two records: U1 (now fail) and U2 (pass). The stale "unknown" version is gone.
    expect(get('result="fail"')).toBe(1);
    expect(get('result="pass"')).toBe(1);
    expect(get('result="unknown"') ?? 0).toBe(0);
  });

  it('keeps records of the same serial and time in different slots or directions apart', async () => {
    const held = [
      unit(a ?? '', 10, { serial: 'U1', slot: '1' }),
      unit(a ?? '', 10, { serial: 'U1', slot: '2' }),
      unit(a ?? '', 10, { serial: 'U1', direction: 'input', slot: '1' }),
    ];
    const ctx = jobContext({ windows: ['1h'] }, { units: () => held });
    const s = samplesOf((await new UnitsJob(ctx).poll({ topology, now: new Date(T0) })).families);
    const total = [...s]
      .filter(([k]) => k.startsWith('station_unit_records{') && k.includes(`station_id="${a}"`))
      .reduce((n, [, v]) => n + v, 0);
    expect(total).toBe(3);
  });
});
