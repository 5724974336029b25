/**
 * Issue 33, defects 2 and 4: record fields that become labels (slot, unit, result) reach /metrics
 * masked and capped, through every family of the measurements and units collectors.
 */
import { describe, expect, it } from 'vitest';
import { MeasurementsJob } from '../../src/collectors/measurements/job.ts';
import { UnitsJob } from '../../src/collectors/units/job.ts';
import type { Family } from '../../src/exposition/model.ts';
import { MAX_LABEL_VALUE_LENGTH } from '../../src/model/label-values.ts';
import type { MeasurementRecord, UnitRecord } from '../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../helpers/fake-client.ts';
import { jobContext } from '../helpers/job-context.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([1]);
const topology = topologyOf([plant]);
const station = topology.stations[0]?.id ?? '';
const CREDENTIAL = 'eyJ0eXAi.c2VjcmV0.Zz9-x';
const HUGE = 'u'.repeat(1 << 20);

const text = (families: readonly Family[]) =>
  families.flatMap((f) => f.samples.map((s) => s.labels.text + (s.exemplar?.labels.text ?? ''))).join('\n');

describe('record label fields from a hostile upstream', () => {
  it('are masked and capped on every measurement family, and counted', async () => {
    const record = (slot: string, unit: string, i: number): MeasurementRecord => ({
      stationId: station,
      slot,
      serial: `SN${i}`,
      time: T0 - 60_000 * (i + 1),
      name: 'temp',
      raw: '20',
      value: 20 + i,
      unit,
      type: null,
      upper: 30,
      lower: 10,
      mode: null,
    });
    const records = [record(`Bearer ${CREDENTIAL}`, HUGE, 0), record('1', 'C', 1), record('1', 'C', 2)];
    const ctx = jobContext(
      {
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: ['temp'],
          histograms: { enabled: true },
          control: { names: ['temp'] },
        },
      },
      { metrics: () => records },
    );
    const out = await new MeasurementsJob(ctx).poll({ topology, now: new Date(T0) });
    const all = text(out.families);
    expect(all).toContain('slot="Bearer [REDACTED]"');
    expect(all).not.toContain(CREDENTIAL);
    const units = [...all.matchAll(/unit="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(Math.max(...units.map((u) => u.length))).toBe(MAX_LABEL_VALUE_LENGTH);
    expect(out.diagnostics?.labelValues).toEqual([
      { reason: 'secret', count: 1 },
      { reason: 'too_long', count: 1 },
    ]);
  });

  it('are masked on every unit family, and counted', async () => {
    const unit = (result: string, i: number): UnitRecord => ({
      stationId: station,
      slot: `Bearer ${CREDENTIAL}`,
      serial: `SN${i}-Bearer ${CREDENTIAL}`,
      time: T0 - 60_000 * (i + 1),
      direction: 'output',
      result,
      unitType: null,
      mode: null,
    });
    const ctx = jobContext(
      { windows: ['1h'] },
      { units: () => [unit(`fail Bearer ${CREDENTIAL}`, 0), unit(HUGE, 1)] },
    );
    // The counter counts records from its first poll on: the second poll's record carries the exemplar.
    const job = new UnitsJob(ctx);
    const units = ctx.client.answers.units;
    ctx.client.answers.units = () => [];
    await job.poll({ topology, now: new Date(T0 - 3 * 60_000) });
    ctx.client.answers.units = units;
    const out = await job.poll({ topology, now: new Date(T0) });
    const all = text(out.families);
    expect(all).toContain('result="fail Bearer [REDACTED]"');
    expect(all).toMatch(/serial="SN\d-Bearer \[REDACTED\]"/);
    expect(all).not.toContain(CREDENTIAL);
    expect(all).not.toContain('u'.repeat(MAX_LABEL_VALUE_LENGTH));
    expect(all).toContain(`result="${'u'.repeat(MAX_LABEL_VALUE_LENGTH - 1)}…"`);
    // The slot (one distinct value, cleaned once), the first result and both serials; the long result.
    expect(out.diagnostics?.labelValues).toEqual([
      { reason: 'secret', count: 4 },
      { reason: 'too_long', count: 1 },
    ]);
  });
});
