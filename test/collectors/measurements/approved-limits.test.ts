/**
 * Charts against approved limits (measurements.control.limits_file): an approved chart keeps its
 * limits while the data moves a rolling chart's; the file read again when it changes, a bad one
 * keeping the last good; the limits' source as series. Expected values come from the file's
 * numbers and the sequences themselves, not from the engine.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlCharts } from '../../../src/collectors/measurements/control.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([2]);
const [A, B] = (plant.lines[0]?.elements ?? []).map((e) => e.id) as [string, string];
const topology = topologyOf([plant]);
const TRIANGLE = [10, 10.1, 10.2, 10.1, 10, 9.9, 9.8, 9.9];

/** One record a minute of the wave (plus `shift`; `flat`: the shift alone) over `[from, to)`. */
function records(station: string, from: number, to: number, shift = 0, flat = false): MeasurementRecord[] {
  const out: MeasurementRecord[] = [];
  for (let t = from, i = 0; t < to; t += MIN, i++) {
    const value = (flat ? 0 : (TRIANGLE[i % 8] ?? 0)) + shift;
    out.push({
      stationId: station,
      slot: null,
      serial: `SN${t}`,
      time: t,
      name: 'vbat',
      raw: String(value),
      value,
      unit: 'V',
      type: 'float',
      upper: 12,
      lower: 8,
      mode: null,
    });
  }
  return out;
}

interface Entry {
  readonly station: string;
  readonly center: number;
  readonly sigma: number;
  readonly approved?: boolean;
  /** The entry's `calibration` mapping, as YAML flow. */
  readonly calibration?: string;
}

/** A limits file with `entries`, ucl and lcl at centre ± 0.3. */
function limitsYaml(entries: readonly Entry[]): string {
  const charts = entries.map((e) =>
    [
      `  - station: "${e.station}"`,
      '    metric: vbat',
      `    center: ${e.center}`,
      `    sigma: ${e.sigma}`,
      `    ucl: ${e.center + 0.3}`,
      `    lcl: ${e.center - 0.3}`,
      ...(e.calibration === undefined ? [] : [`    calibration: ${e.calibration}`]),
      '    excluded:',
      '      - { from: 2026-02-27T10:00:00Z, to: 2026-02-27T11:00:00Z, cause: "fixture swapped" }',
      '      - { at: 2026-02-28T08:00:00Z, cause: "unit re-seated" }',
      ...(e.approved === false
        ? []
        : ['    approved_by: j.doe', '    approved_at: 2026-03-01T09:00:00Z', '    reason: "Phase I study"']),
    ].join('\n'),
  );
  return `version: 1\ncharts:\n${charts.join('\n')}\n`;
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'limits-'));
  file = join(dir, 'limits.yaml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the file with a modification time of its own, so that a rewrite within a millisecond is seen. */
let writes = 0;
function write(text: string): void {
  writeFileSync(file, text);
  const t = NOW / 1000 + ++writes;
  utimesSync(file, t, t);
}

function charts() {
  const ctx = jobContext({
    windows: ['1h'],
    measurements: {
      enabled: true,
      names: ['vbat'],
      control: {
        names: ['vbat'],
        baseline: { rolling: '2h' },
        compensate_autocorrelation: false,
        limits_file: file,
      },
    },
  });
  const store = new MeasurementStore();
  return { store, charts: new ControlCharts(ctx, store) };
}

async function poll(c: ControlCharts, nowMs: number) {
  c.retainFrom(nowMs, nowMs - HOUR);
  return samplesOf(await c.families(topology, { nowMs, complete: true }));
}

const of = (s: Map<string, number>, family: string, station: string, extra = '') =>
  [...s].find(
    ([k]) => k.startsWith(`${family}{`) && k.includes(`station_id="${station}"`) && k.includes(extra),
  )?.[1];

const keysOf = (s: Map<string, number>, family: string, station: string) =>
  [...s.keys()].filter((k) => k.startsWith(`${family}{`) && k.includes(`station_id="${station}"`));

describe('charts against approved limits', () => {
  it('keeps approved limits frozen while new data moves a rolling chart', async () => {
    write(limitsYaml([{ station: A, center: 10, sigma: 0.1 }]));
    const { store, charts: c } = charts();
    expect(await c.refreshLimits()).toBe('loaded');
    store.add([...records(A, NOW - 3 * HOUR, NOW), ...records(B, NOW - 3 * HOUR, NOW)]);
    const before = await poll(c, NOW);
    // The rolling chart's centre: whole periods of the wave, mean 10.
    expect(of(before, 'station_measurement_control_center', B)).toBeCloseTo(10, 9);
    expect(of(before, 'station_measurement_control_center', A)).toBe(10);
    // The process moves up by 1 for three hours: more than the rolling baseline's 2h.
    const later = NOW + 3 * HOUR;
    store.add([...records(A, NOW, later, 1), ...records(B, NOW, later, 1)]);
    const after = await poll(c, later);
    expect(of(after, 'station_measurement_control_center', B)).toBeCloseTo(11, 9);
    expect(of(after, 'station_measurement_control_center', A)).toBe(10);
    expect(of(after, 'station_measurement_control_ucl', A)).toBe(10.3);
    expect(of(after, 'station_measurement_control_lcl', A)).toBe(10 - 0.3);
    // Every point is beyond the frozen UCL (the rolling chart sees them in control by now).
    expect(of(after, 'station_measurement_control_state', A)).toBe(1);
    expect(of(after, 'station_measurement_control_violations_total', A, 'rule="1"')).toBeGreaterThan(100);
  });

  it('standardizes the CUSUM and EWMA by the approved sigma, not by the limits', async () => {
    // Same limits, sigmas 0.05 and 0.1, points at the centre (no signal restarts either EWMA):
    // the EWMA's half-width scales with sigma alone.
    write(
      limitsYaml([
        { station: A, center: 10, sigma: 0.05 },
        { station: B, center: 10, sigma: 0.1 },
      ]),
    );
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add([...records(A, NOW - HOUR, NOW, 10, true), ...records(B, NOW - HOUR, NOW, 10, true)]);
    const s = await poll(c, NOW);
    const half = (id: string) => of(s, 'station_measurement_control_ewma_half_width', id) ?? Number.NaN;
    expect(half(A) / half(B)).toBeCloseTo(0.5, 12);
  });

  it('calibrates the CUSUM and EWMA on the shape the entry carries, as a rolling baseline’s', async () => {
    // A: the study's standard deviation 0.2 and phi 0.3; B: none (sigma 0.1). Points at the
    // centre: the EWMA's half-width is L sd sqrt(...), L widened by sqrt((1 + c) / (1 - c)),
    // c = phi (1 - lambda), lambda 0.1 by default.
    write(
      limitsYaml([
        { station: A, center: 10, sigma: 0.1, calibration: '{ sd: 0.2, phi: 0.3 }' },
        { station: B, center: 10, sigma: 0.1 },
      ]),
    );
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add([...records(A, NOW - HOUR, NOW, 10, true), ...records(B, NOW - HOUR, NOW, 10, true)]);
    const s = await poll(c, NOW);
    const half = (m: Map<string, number>, id: string) =>
      of(m, 'station_measurement_control_ewma_half_width', id) ?? Number.NaN;
    const carried = 0.3 * 0.9;
    expect(half(s, A) / half(s, B)).toBeCloseTo(2 * Math.sqrt((1 + carried) / (1 - carried)), 12);
    // The calibration alone changed: the chart starts again with the new one (its EWMA from the
    // points the store holds, so t, and the half-width's start-up factor, differ a little from B's).
    write(
      limitsYaml([
        { station: A, center: 10, sigma: 0.1, calibration: '{ sd: 0.1 }' },
        { station: B, center: 10, sigma: 0.1 },
      ]),
    );
    expect(await c.refreshLimits()).toBe('loaded');
    store.add([...records(A, NOW, NOW + 10 * MIN, 10, true), ...records(B, NOW, NOW + 10 * MIN, 10, true)]);
    const later = await poll(c, NOW + 10 * MIN);
    expect(half(later, A) / half(later, B)).toBeCloseTo(1, 4);
  });

  it('exports where each chart’s limits come from', async () => {
    write(limitsYaml([{ station: A, center: 10, sigma: 0.1 }]));
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add([...records(A, NOW - 3 * HOUR, NOW), ...records(B, NOW - 3 * HOUR, NOW)]);
    const s = await poll(c, NOW);
    const info = 'station_measurement_control_limits_info';
    expect(keysOf(s, info, A)).toHaveLength(1);
    expect(keysOf(s, info, A)[0]).toMatch(/source="approved",approved_by="j\.doe"/);
    expect(keysOf(s, info, B)).toHaveLength(1);
    expect(keysOf(s, info, B)[0]).toMatch(/source="rolling"}/);
    expect(of(s, info, A)).toBe(1);
    expect(of(s, 'station_measurement_control_limits_approved_timestamp_seconds', A)).toBe(
      Date.parse('2026-03-01T09:00:00Z') / 1000,
    );
    expect(keysOf(s, 'station_measurement_control_limits_approved_timestamp_seconds', B)).toEqual([]);
    const exclusions = 'station_measurement_control_limits_exclusion_timestamp_seconds';
    expect(of(s, exclusions, A, 'cause="fixture swapped"')).toBe(Date.parse('2026-02-27T10:00:00Z') / 1000);
    expect(of(s, exclusions, A, 'cause="unit re-seated"')).toBe(Date.parse('2026-02-28T08:00:00Z') / 1000);
    expect(keysOf(s, exclusions, B)).toEqual([]);
  });

  it('says in HELP that approved limits may stand for the baseline', async () => {
    write(limitsYaml([{ station: A, center: 10, sigma: 0.1 }]));
    const { charts: c } = charts();
    const families = await c.families(topology, { nowMs: NOW, complete: true });
    const center = families.find((f) => f.desc.name === 'station_measurement_control_center');
    expect(center?.desc.help).toContain('a rolling baseline of 2h');
    expect(center?.desc.help).toContain('an approved entry in the approved-limits file');
  });

  it('leaves an entry that is not approved unused', async () => {
    write(limitsYaml([{ station: A, center: 20, sigma: 0.1, approved: false }]));
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add(records(A, NOW - 3 * HOUR, NOW));
    const s = await poll(c, NOW);
    expect(of(s, 'station_measurement_control_center', A)).toBeCloseTo(10, 9);
    expect(keysOf(s, 'station_measurement_control_limits_info', A)[0]).toMatch(/source="rolling"/);
  });

  it('gives a station that appears later its approved limits', async () => {
    write(limitsYaml([{ station: B, center: 10.05, sigma: 0.1 }]));
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add(records(A, NOW - 3 * HOUR, NOW));
    const first = await poll(c, NOW);
    expect(keysOf(first, 'station_measurement_control_center', B)).toEqual([]);
    store.add(records(B, NOW, NOW + HOUR));
    const s = await poll(c, NOW + HOUR);
    expect(of(s, 'station_measurement_control_center', B)).toBe(10.05);
  });

  it('takes a changed file at the next refresh, and keeps the last good one when it turns bad', async () => {
    write(limitsYaml([{ station: A, center: 10, sigma: 0.1 }]));
    const { store, charts: c } = charts();
    await c.refreshLimits();
    store.add([...records(A, NOW - 3 * HOUR, NOW), ...records(B, NOW - 3 * HOUR, NOW)]);
    await poll(c, NOW);
    expect(await c.refreshLimits()).toBe('unchanged');
    // B approved, A re-established at another centre.
    write(
      limitsYaml([
        { station: A, center: 10.1, sigma: 0.1 },
        { station: B, center: 9.9, sigma: 0.1 },
      ]),
    );
    expect(await c.refreshLimits()).toBe('loaded');
    store.add([...records(A, NOW, NOW + 10 * MIN), ...records(B, NOW, NOW + 10 * MIN)]);
    const s = await poll(c, NOW + 10 * MIN);
    expect(of(s, 'station_measurement_control_center', A)).toBe(10.1);
    expect(of(s, 'station_measurement_control_center', B)).toBe(9.9);
    // Not a limits file: the last good one stays, and the failure is reported once.
    write('version: 1\ncharts:\n  - station: nope\n');
    expect(await c.refreshLimits()).toBe('failed');
    expect(await c.refreshLimits()).toBe('unchanged');
    const kept = await poll(c, NOW + 11 * MIN);
    expect(of(kept, 'station_measurement_control_center', A)).toBe(10.1);
    expect(of(kept, 'station_measurement_control_center', B)).toBe(9.9);
    // A file that is gone keeps the last good one too.
    rmSync(file);
    expect(await c.refreshLimits()).toBe('failed');
    expect(of(await poll(c, NOW + 12 * MIN), 'station_measurement_control_center', A)).toBe(10.1);
    // Fixed: an approval withdrawn makes the chart roll again (from the points the store holds).
    write(limitsYaml([{ station: B, center: 9.9, sigma: 0.1 }]));
    expect(await c.refreshLimits()).toBe('loaded');
    const fixed = await poll(c, NOW + 13 * MIN);
    expect(keysOf(fixed, 'station_measurement_control_limits_info', A)[0]).toMatch(/source="rolling"/);
    expect(of(fixed, 'station_measurement_control_center', B)).toBe(9.9);
  });
});
