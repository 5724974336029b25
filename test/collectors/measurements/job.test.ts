import { describe, expect, it } from 'vitest';
import { createMeasurementsJob } from '../../../src/collectors/measurements/job.ts';
import { WINDOW_STATISTICS } from '../../../src/config/schema.ts';
import type { MetricsQuery } from '../../../src/upstream/endpoints.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([1]);
const station = plant.lines[0]?.elements[0]?.id ?? '';
const topology = topologyOf([plant]);

const rec = (minutesAgo: number, value: number, now = T0): MeasurementRecord => ({
  stationId: station,
  slot: null,
  serial: `SN${minutesAgo}`,
  time: now - minutesAgo * MIN,
  name: 'vbat',
  raw: String(value),
  value,
  unit: 'V',
  type: 'float',
  upper: 3.5,
  lower: 1.5,
  mode: null,
});

/** Answers each query with the held records inside its [from, to). */
function upstream(records: MeasurementRecord[]) {
  return (q: MetricsQuery) =>
    records.filter((r) => r.time >= (q.from?.getTime() ?? 0) && r.time < (q.to?.getTime() ?? 0));
}

describe('measurements job', () => {
  it('computes each window from the records the client returned', async () => {
    const held = [rec(50, 9), rec(10, 1), rec(8, 2), rec(6, 3), rec(4, 4)];
    const ctx = jobContext(
      {
        windows: ['15m', '1h'],
        measurements: { enabled: true, names: ['vbat'], statistics: { default: [...WINDOW_STATISTICS] } },
      },
      { metrics: upstream(held) },
    );
    const out = await createMeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
    expect(out.failures).toBe(0);
    const s = samplesOf(out.families);
    const key = (name: string, window: string) =>
      [...s.keys()].find((k) => k.startsWith(`${name}{`) && k.includes(`window="${window}"`)) ?? '';
    // 15m holds 1, 2, 3, 4: mean 2.5, sample sd sqrt(((1.5² + 0.5²) x 2) / 3) = sqrt(5/3).
    expect(s.get(key('station_measurement_window_samples', '15m'))).toBe(4);
    expect(s.get(key('station_measurement_window_mean', '15m'))).toBeCloseTo(2.5, 12);
    expect(s.get(key('station_measurement_window_stddev', '15m'))).toBeCloseTo(Math.sqrt(5 / 3), 12);
    // Outside [1.5, 3.5]: 1 and 4.
    expect(s.get(key('station_measurement_window_out_of_spec_samples', '15m'))).toBe(2);
    // 1h adds the 9 from 50 minutes ago.
    expect(s.get(key('station_measurement_window_samples', '1h'))).toBe(5);
    expect(s.get(key('station_measurement_window_max', '1h'))).toBe(9);
    const last = [...s].find(([k]) => k.startsWith('station_measurement_last_value{'));
    expect(last?.[1]).toBe(4);
    // The client was asked for the configured names only.
    expect((ctx.client.calls[0]?.query as MetricsQuery | undefined)?.names).toEqual(['vbat']);
  });

  it('reads only what is new on the next poll, and counts nothing twice', async () => {
    const held = [rec(10, 1), rec(5, 2)];
    const ctx = jobContext(
      {
        windows: ['15m'],
        measurements: {
          enabled: true,
          names: ['vbat'],
          overlap: '2m',
          statistics: { default: [...WINDOW_STATISTICS] },
        },
      },
      { metrics: upstream(held) },
    );
    const job = createMeasurementsJob(ctx);
    await job.poll({ topology, now: new Date(T0) });
    held.push(rec(1, 3, T0 + MIN));
    const calls = ctx.client.calls.length;
    const out = await job.poll({ topology, now: new Date(T0 + MIN) });
    const q = ctx.client.calls[calls]?.query as MetricsQuery;
    // From the last end minus the 2-minute overlap.
    expect(q.from?.getTime()).toBe(T0 - 2 * MIN);
    const s = samplesOf(out.families);
    const samples = [...s].find(([k]) => k.startsWith('station_measurement_window_samples{'));
    expect(samples?.[1]).toBe(3);
  });
});
