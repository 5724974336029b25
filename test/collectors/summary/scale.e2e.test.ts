import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SummaryJob } from '../../../src/collectors/summary/job.ts';
import { evidentScale, Scaler } from '../../../src/collectors/summary/scale.ts';
import type { StationSummary } from '../../../src/upstream/types.ts';
import { parseExposition } from '../../helpers/exposition.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { byLabel, samplesOf } from '../../helpers/families.ts';
import { dataExposition, type Harness, startHarness } from '../../helpers/harness.ts';
import { jobContext } from '../../helpers/job-context.ts';

const silent = pino({ level: 'silent' });
const T0 = new Date('2026-03-01T12:00:00Z');
const topology = topologyOf([plantOf([2])]);

/** A percent upstream: 1000 output units, 770.7 first passes would be 77.07 %. */
const percentAnswer: StationSummary = {
  uniqueOutput: 1000,
  firstPass: 771,
  finalPass: 950,
  firstPassYield: 77.1,
  finalYield: 95,
  retryRate: 4.2,
};

describe('evidentScale', () => {
  it('reads percent from a value above 1, and from counts when every value is at most 1', () => {
    expect(evidentScale(percentAnswer)).toBe('percent');
    // 8 of 1000 units passed first: 0.8 % in percent, 0.008 as a ratio.
    expect(evidentScale({ uniqueOutput: 1000, firstPass: 8, firstPassYield: 0.8 })).toBe('percent');
    expect(evidentScale({ uniqueOutput: 1000, firstPass: 800, firstPassYield: 0.8 })).toBe('ratio');
  });

  it('is undecided without output units, or when both scales fit the counts', () => {
    expect(evidentScale({ uniqueOutput: 0, firstPass: 0, firstPassYield: 0 })).toBeUndefined();
    expect(evidentScale({ firstPassYield: 0.9, finalYield: 1 })).toBeUndefined();
    // 2 of 1000: 0.002 as a ratio and 0.2 % / 100 = 0.002 both fit within half a point.
    expect(evidentScale({ uniqueOutput: 1000, firstPass: 2, firstPassYield: 0.002 })).toBeUndefined();
  });
});

describe('Scaler', () => {
  it('with ratio, drops every ratio field of a percent answer and counts them', () => {
    const out = new Scaler('ratio', silent).scale(percentAnswer);
    expect(out.summary.firstPassYield).toBeUndefined();
    expect(out.summary.finalYield).toBeUndefined();
    expect(out.summary.retryRate).toBeUndefined();
    expect(out.summary.firstPass).toBe(771);
    expect([...out.dropped]).toEqual([['scale_mismatch', 3]]);
  });

  it('with ratio, drops an all-below-1 answer whose counts show percent', () => {
    const out = new Scaler('ratio', silent).scale({
      uniqueOutput: 1000,
      firstPass: 8,
      firstPassYield: 0.8,
    });
    expect(out.summary.firstPassYield).toBeUndefined();
    expect([...out.dropped]).toEqual([['scale_mismatch', 1]]);
  });

  it('with percent, drops a ratio answer and a value above 100', () => {
    const scaler = new Scaler('percent', silent);
    const ratio = scaler.scale({ uniqueOutput: 10, finalPass: 9, finalYield: 0.9 });
    expect(ratio.summary.finalYield).toBeUndefined();
    expect([...ratio.dropped]).toEqual([['scale_mismatch', 1]]);
    const over = scaler.scale({ firstPassYield: 120, finalYield: 50 });
    expect(over.summary.firstPassYield).toBeUndefined();
    expect(over.summary.finalYield).toBe(0.5);
    expect([...over.dropped]).toEqual([['out_of_range', 1]]);
  });

  it('with auto, scales each answer by its evidence and undecided ones by the last decision', () => {
    const scaler = new Scaler('auto', silent);
    // Before any decision an undecided answer is taken as a ratio.
    expect(scaler.scale({ finalYield: 0.5 }).summary.finalYield).toBe(0.5);
    const p = scaler.scale(percentAnswer).summary;
    expect(p.firstPassYield).toBeCloseTo(0.771, 12);
    expect(p.retryRate).toBeCloseTo(0.042, 12);
    // Undecided (no output units): the upstream was last seen in percent.
    expect(scaler.scale({ uniqueOutput: 0, finalYield: 0.5 }).summary.finalYield).toBeCloseTo(0.005, 12);
    // Counts that show a ratio win over the learned scale.
    const r = scaler.scale({ uniqueOutput: 4, finalPass: 3, finalYield: 0.75 });
    expect(r.summary.finalYield).toBe(0.75);
    expect(r.dropped.size).toBe(0);
  });
});

describe('summary job and a percent upstream', () => {
  const percent = () => percentAnswer;

  it('exports no ratio under yield_scale ratio and reports the dropped values', async () => {
    const ctx = jobContext({ windows: ['1h'], summary: { levels: ['station'] } }, { summary: percent });
    const out = await new SummaryJob(ctx).poll({ topology, now: T0 });
    const names = new Set([...samplesOf(out.families).keys()].map((k) => k.split('{')[0]));
    expect(names.has('station_first_pass_yield_ratio')).toBe(false);
    expect(names.has('station_final_yield_ratio')).toBe(false);
    expect(names.has('station_first_pass_units')).toBe(true);
    // Two stations x one window x three ratio fields.
    expect(out.diagnostics?.recordsSkipped).toEqual([
      { endpoint: 'station_summary', reason: 'scale_mismatch', count: 6 },
    ]);
  });

  it('exports the ratio under yield_scale auto', async () => {
    const ctx = jobContext(
      { windows: ['1h'], summary: { levels: ['station'], yield_scale: 'auto' } },
      { summary: percent },
    );
    const out = await new SummaryJob(ctx).poll({ topology, now: T0 });
    for (const v of byLabel(out.families, 'station_first_pass_yield_ratio', 'station_id').values()) {
      expect(v).toBeCloseTo(77.1 / 100, 12);
    }
    expect(out.diagnostics?.recordsSkipped).toEqual([]);
  });
});

describe('a percent simulator end to end', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const config = (yieldScale: string) => ({
    windows: ['24h'],
    units: { enabled: false },
    measurements: { enabled: false },
    summary: { levels: ['line'], yield_scale: yieldScale },
    targets: { enabled: false },
  });

  it('under ratio: no line yield, and records_skipped_total{reason="scale_mismatch"} counts them', async () => {
    h = await startHarness({ sim: { yieldScale: 'percent' }, config: config('ratio') });
    await h.exporter.scheduler.pollOnce();
    const rows = parseExposition(await dataExposition(h.exporter));
    const lines = rows.filter((s) => s.name === 'station_line_unique_output_units').length;
    expect(lines).toBeGreaterThan(0);
    expect(rows.filter((s) => s.name.endsWith('_ratio'))).toEqual([]);
    const self = await (await h.exporter.app.request('/metrics')).text();
    const m =
      /station_exporter_records_skipped_total\{endpoint="station_summary",reason="scale_mismatch"\} (\d+)/.exec(
        self,
      );
    expect(Number(m?.[1])).toBe(3 * lines);
  });

  it('under auto: line yields equal the line counts divided, as ratios', async () => {
    h = await startHarness({ sim: { yieldScale: 'percent' }, config: config('auto') });
    await h.exporter.scheduler.pollOnce();
    const rows = parseExposition(await dataExposition(h.exporter));
    const of = (name: string, line: string) =>
      rows.find((s) => s.name === name && s.labels.line === line)?.value ?? Number.NaN;
    const lines = rows.filter((s) => s.name === 'station_line_final_yield_ratio');
    expect(lines.length).toBeGreaterThan(0);
    for (const { labels } of lines) {
      const expected =
        of('station_line_final_pass_units', labels.line!) /
        of('station_line_unique_output_units', labels.line!);
      expect(of('station_line_final_yield_ratio', labels.line!)).toBeCloseTo(expected, 6);
    }
  });
});
