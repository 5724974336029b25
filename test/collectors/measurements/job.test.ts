import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MeasurementsJob } from '../../../src/collectors/measurements/job.ts';
import { WINDOW_STATISTICS } from '../../../src/config/measurements-schema.ts';
import type { MetricsQuery } from '../../../src/upstream/endpoints.ts';
import { parseMeasurements } from '../../../src/upstream/parse.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { duplicateSeries, parseExposition } from '../../helpers/exposition.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';
import { renderFamilies } from '../../helpers/render.ts';

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
  it('reports the reads of the approved-limits file, good and bad, for the self-metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-job-'));
    const file = join(dir, 'limits.yaml');
    const write = (text: string, at: number) => {
      writeFileSync(file, text);
      utimesSync(file, at, at);
    };
    try {
      write('version: 1\ncharts: []\n', 1);
      const ctx = jobContext(
        {
          windows: ['1h'],
          measurements: { enabled: true, names: ['vbat'], control: { names: ['vbat'], limits_file: file } },
        },
        { metrics: upstream([rec(10, 2)]) },
      );
      const job = new MeasurementsJob(ctx);
      const diagnostics = async () => (await job.poll({ topology, now: new Date(T0) })).diagnostics;
      expect((await diagnostics())?.limitsFileLoaded).toBe(true);
      // Unchanged: not read again, nothing to report.
      expect((await diagnostics())?.limitsFileLoaded).toBeUndefined();
      write('version: 1\ncharts: {}\n', 2);
      expect((await diagnostics())?.limitsFileLoaded).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('computes each window from the records the client returned', async () => {
    const held = [rec(50, 9), rec(10, 1), rec(8, 2), rec(6, 3), rec(4, 4)];
    const ctx = jobContext(
      {
        windows: ['15m', '1h'],
        measurements: { enabled: true, names: ['vbat'], statistics: { default: [...WINDOW_STATISTICS] } },
      },
      { metrics: upstream(held) },
    );
    const out = await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
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
    const job = new MeasurementsJob(ctx);
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

describe('measurements job: numbers a quality engineer can trust', () => {
  const key = (s: Map<string, number>, name: string, ...parts: string[]) =>
    [...s.keys()].filter((k) => k.startsWith(`${name}{`) && parts.every((p) => k.includes(p)));

  /** The i-th of a series of wire records of `vbat`, minutes apart, as the upstream sends them. */
  const wireRecord = (i: number, fields: Record<string, unknown>) => ({
    station_id: station,
    slot: null,
    unit_serial: `SN${i}`,
    time_created: new Date(T0 - (10 - i) * MIN).toISOString(),
    tz: null,
    mode: null,
    tags: [],
    name: 'vbat',
    unit: 'V',
    type: null,
    limit_upper: '3.5',
    limit_lower: '1.5',
    ...fields,
  });

  it('merges an empty slot with no slot: one series, as Prometheus would store it', async () => {
    const yielder = new LoopYielder();
    const raw = [0, 1, 2, 3].map((i) =>
      wireRecord(i, { slot: i % 2 === 0 ? '' : null, value: String(2 + i) }),
    );
    const parsed = (await parseMeasurements(raw, yielder)).records;
    const ctx = jobContext(
      { windows: ['1h'], measurements: { enabled: true, names: ['vbat'], min_samples: 2 } },
      { metrics: upstream(parsed) },
    );
    const out = await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
    const samples = parseExposition(renderFamilies(out.families, 'text'));
    expect(duplicateSeries(samples)).toEqual([]);
    const counts = samples.filter((x) => x.name === 'station_measurement_window_samples');
    expect(counts.map((x) => [x.labels.slot, x.value])).toEqual([[undefined, 4]]);
  });

  it('counts padded numerals and padded limits like any other value', async () => {
    const yielder = new LoopYielder();
    // Fixed-width station software: blanks, tabs and line ends around the numerals.
    const wire = [' 2.5', '3.30\t', '  1 ', '\r\n4.0 ', ' 2.7'];
    const raw = wire.map((value, i) => wireRecord(i, { value, limit_upper: ' 3.5 ', limit_lower: '\t1.5' }));
    const parsed = (await parseMeasurements(raw, yielder)).records;
    const ctx = jobContext(
      {
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: ['vbat'],
          min_samples: 2,
          statistics: { default: [...WINDOW_STATISTICS] },
        },
      },
      { metrics: upstream(parsed) },
    );
    const s = samplesOf((await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) })).families);
    const values = [2.5, 3.3, 1, 4, 2.7];
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1));
    const get = (name: string) => s.get(key(s, name)[0] ?? '');
    expect(get('station_measurement_window_samples')).toBe(5);
    expect(get('station_measurement_window_non_numeric_samples')).toBe(0);
    expect(get('station_measurement_window_mean')).toBeCloseTo(mean, 12);
    expect(get('station_measurement_window_stddev')).toBeCloseTo(sd, 12);
    expect(get('station_measurement_window_min')).toBe(1);
    expect(get('station_measurement_window_max')).toBe(4);
    // Outside [1.5, 3.5]: 1 and 4.
    expect(get('station_measurement_window_out_of_spec_samples')).toBe(2);
    expect(get('station_measurement_upper_limit')).toBe(3.5);
    expect(get('station_measurement_lower_limit')).toBe(1.5);
    expect(get('station_measurement_window_ppk')).toBeCloseTo(
      Math.min(3.5 - mean, mean - 1.5) / (3 * sd),
      12,
    );
    expect(get('station_measurement_last_value')).toBe(2.7);
  });

  it('keeps the limits and Ppk when the newest record has none (e.g. a non-numeric one)', async () => {
    const values = [2, 3, 2.5, 3.2, 2.2];
    const held = [
      ...values.map((v, i) => rec(20 - i, v)),
      { ...rec(5, 0), value: undefined, raw: '', upper: undefined, lower: undefined },
      { ...rec(4, 2.9), upper: undefined, lower: undefined },
    ];
    const ctx = jobContext(
      { windows: ['1h'], measurements: { enabled: true, names: ['vbat'], min_samples: 5 } },
      { metrics: upstream(held) },
    );
    const s = samplesOf((await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) })).families);
    expect(s.get(key(s, 'station_measurement_upper_limit')[0] ?? '')).toBe(3.5);
    expect(s.get(key(s, 'station_measurement_lower_limit')[0] ?? '')).toBe(1.5);
    // Ppk over the six numeric values against [1.5, 3.5], computed here.
    const all = [...values, 2.9];
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    const sd = Math.sqrt(all.reduce((a, v) => a + (v - mean) ** 2, 0) / (all.length - 1));
    const want = Math.min(3.5 - mean, mean - 1.5) / (3 * sd);
    expect(s.get(key(s, 'station_measurement_window_ppk')[0] ?? '')).toBeCloseTo(want, 12);
  });

  it('skips and counts records dated in the future beyond max_future_skew', async () => {
    const held = [rec(10, 2), rec(-3, 2.5), rec(-30, 3), rec(-31, 3)];
    const ctx = jobContext(
      { windows: ['1h'], measurements: { enabled: true, names: ['vbat'] } },
      // The last span's answer holds the future records too, like an upstream that files times differently.
      {
        metrics: (q) =>
          held.filter(
            (r) =>
              r.time >= (q.from?.getTime() ?? 0) &&
              (r.time < (q.to?.getTime() ?? 0) || q.to?.getTime() === T0),
          ),
      },
    );
    const s = samplesOf((await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) })).families);
    // 3 minutes ahead is within the default 5m skew (but after every window's end); 30 and 31 minutes are not.
    expect(s.get(key(s, 'station_measurement_window_samples')[0] ?? '')).toBe(1);
    expect(s.get(key(s, 'station_measurement_future_records_total')[0] ?? '')).toBe(2);
  });

  it('counts records that arrived later than the overlap, and the re-read sweep picks them up', async () => {
    const held: MeasurementRecord[] = [rec(30, 2)];
    const ctx = jobContext(
      {
        windows: ['2h'],
        measurements: { enabled: true, names: ['vbat'], overlap: '5m', reread_interval: '1h' },
      },
      { metrics: upstream(held) },
    );
    const job = new MeasurementsJob(ctx);
    await job.poll({ topology, now: new Date(T0) });
    // Becomes visible at T0 + 2m, created 20 minutes before T0: beyond the 5m overlap.
    held.push(rec(20, 3), { ...rec(1, 4, T0 + 2 * MIN), inserted: T0 + 2 * MIN + 6 * MIN });
    let s = samplesOf((await job.poll({ topology, now: new Date(T0 + 2 * MIN) })).families);
    // The incremental read starts at T0 - 5m: the record of T0 - 20m is not seen yet. The
    // record with time_inserted 6 minutes after its time is late, though read in time.
    expect(s.get(key(s, 'station_measurement_window_samples')[0] ?? '')).toBe(2);
    expect(s.get(key(s, 'station_measurement_late_records_total')[0] ?? '')).toBe(1);
    // An hour after the first read, the sweep's last range finds the record of T0 - 20m.
    s = samplesOf((await job.poll({ topology, now: new Date(T0 + 60 * MIN) })).families);
    expect(s.get(key(s, 'station_measurement_late_records_total')[0] ?? '')).toBe(2);
    const froms = ctx.client.calls.map((c) => (c.query as MetricsQuery).from?.getTime());
    // Polls 2 and 3 start at the last end minus the overlap and at the start of the 2h window.
    expect(froms).toContain(T0 - 5 * MIN);
    expect(froms).toContain(T0 - 60 * MIN);
    // ... and it counts once: a later deep re-read sees it again without counting it again.
    s = samplesOf((await job.poll({ topology, now: new Date(T0 + 121 * MIN) })).families);
    expect(s.get(key(s, 'station_measurement_late_records_total')[0] ?? '')).toBe(2);
  });

  it('keeps a series that left every window at 0 samples, without statistics, for the retention', async () => {
    const ctx = jobContext(
      { windows: ['1h'], measurements: { enabled: true, names: ['vbat'], retention: '3h' } },
      { metrics: upstream([rec(10, 2), rec(5, 3)]) },
    );
    const job = new MeasurementsJob(ctx);
    await job.poll({ topology, now: new Date(T0) });
    let s = samplesOf((await job.poll({ topology, now: new Date(T0 + 2 * 60 * MIN) })).families);
    expect(s.get(key(s, 'station_measurement_window_samples')[0] ?? '')).toBe(0);
    expect(key(s, 'station_measurement_window_mean')).toEqual([]);
    expect(key(s, 'station_measurement_window_stddev')).toEqual([]);
    // The last value stays, with its time, so that "no samples for 2h" can be told.
    expect(s.get(key(s, 'station_measurement_last_timestamp_seconds')[0] ?? '')).toBe((T0 - 5 * MIN) / 1000);
    s = samplesOf((await job.poll({ topology, now: new Date(T0 + 3 * 60 * MIN) })).families);
    expect(key(s, 'station_measurement_window_samples')).toEqual([]);
  });

  it('counts attribute records by outcome, case-insensitively, with configurable values', async () => {
    const raws = ['PASS', 'pass', 'Good', 'FAIL', 'ng', 'bad', 'n/a'];
    const held = raws.map((raw, i) => ({ ...rec(20 - i, 0), raw, value: undefined }));
    const ctx = jobContext(
      {
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: ['vbat'],
          attributes: { pass: ['pass', 'GOOD'], fail: ['Fail', 'NG'] },
          statistics: { default: [...WINDOW_STATISTICS] },
        },
      },
      { metrics: upstream(held) },
    );
    const s = samplesOf((await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) })).families);
    const name = 'station_measurement_window_attribute_samples';
    expect(s.get(key(s, name, 'outcome="pass"')[0] ?? '')).toBe(3);
    expect(s.get(key(s, name, 'outcome="fail"')[0] ?? '')).toBe(2);
    expect(s.get(key(s, 'station_measurement_window_non_numeric_samples')[0] ?? '')).toBe(7);
  });
});

describe('measurements job: capability by method', () => {
  /** Wire records of `vbat` with values exp(z) at spread normal scores, upper limit 20. */
  const skewed = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      station_id: station,
      slot: null,
      unit_serial: `SN${i}`,
      time_created: new Date(T0 - (n - i) * 1000).toISOString(),
      tz: null,
      mode: null,
      tags: [],
      name: 'vbat',
      unit: 'V',
      type: null,
      value: String(Math.exp(Math.sin(i * 1.7) * 1.2)),
      limit_upper: '20',
      limit_lower: null,
    }));

  it('exports the method, the bounds and λ of a box-cox name, and normality where selected', async () => {
    const parsed = (await parseMeasurements(skewed(60), new LoopYielder())).records;
    const ctx = jobContext(
      {
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: [{ name: 'vbat', capability_method: 'box-cox' }],
          statistics: { default: ['samples', 'ppk', 'normality'] },
        },
      },
      { metrics: upstream(parsed) },
    );
    const out = await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
    const samples = parseExposition(renderFamilies(out.families, 'text'));
    const value = (name: string) => samples.find((x) => x.name === name)?.value;
    expect(samples.find((x) => x.name === 'station_measurement_capability_info')?.labels).toEqual({
      metric: 'vbat',
      method: 'box-cox',
    });
    const ppk = value('station_measurement_window_ppk') as number;
    const lambda = value('station_measurement_window_box_cox_lambda') as number;
    // The same values through the method directly: the job hands over the window's values.
    const values = parsed.map((r) => Number(r.value));
    const transformed = values.map((v) => (v ** lambda - 1) / lambda);
    const mean = transformed.reduce((a, b) => a + b, 0) / 60;
    const sd = Math.sqrt(transformed.reduce((a, v) => a + (v - mean) ** 2, 0) / 59);
    expect(ppk).toBeCloseTo(((20 ** lambda - 1) / lambda - mean) / (3 * sd), 8);
    expect(value('station_measurement_window_ppk_lower_bound')).toBeLessThan(ppk);
    expect(value('station_measurement_window_ppk_upper_bound')).toBeGreaterThan(ppk);
    expect(value('station_measurement_window_anderson_darling_p_value')).toBeGreaterThan(0);
    // Cpk is not selected: not exported.
    expect(value('station_measurement_window_cpk')).toBeUndefined();
  });

  it('keeps the normal method by default: no bounds, no λ', async () => {
    const parsed = (await parseMeasurements(skewed(60), new LoopYielder())).records;
    const ctx = jobContext(
      { windows: ['1h'], measurements: { enabled: true, names: ['vbat'] } },
      { metrics: upstream(parsed) },
    );
    const out = await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
    const names = new Set(parseExposition(renderFamilies(out.families, 'text')).map((x) => x.name));
    expect(names.has('station_measurement_window_ppk')).toBe(true);
    expect(names.has('station_measurement_window_ppk_lower_bound')).toBe(false);
    expect(names.has('station_measurement_window_box_cox_lambda')).toBe(false);
    expect(names.has('station_measurement_window_anderson_darling')).toBe(false);
  });
});
