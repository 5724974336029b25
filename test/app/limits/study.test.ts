/**
 * `limits study` without I/O: each entry carries the shape its study measured on the kept points
 * (the calibration a rolling baseline of them would have), and a study, approved and loaded by
 * the exporter's loader, calibrates the approved chart as the study's own limits were.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';
import { approveLimits } from '../../../src/app/limits/approve.ts';
import { limitsYaml } from '../../../src/app/limits/file.ts';
import type { ChartSeries } from '../../../src/app/limits/source.ts';
import { studyAll } from '../../../src/app/limits/study.ts';
import { controlSchema } from '../../../src/config/control-schema.ts';
import { loadLimitsFile } from '../../../src/config/limits-schema.ts';
import type { StationNode } from '../../../src/model/topology.ts';
import { Ar1, standardDraw } from '../../../src/simulator/index.ts';
import { givenLimits } from '../../../src/spc/limits.ts';

const STATION = '65a1f0c2e4b0a1b2c3d4e5f6';
const HOUR = 3_600_000;
const PERIOD = { fromMs: Date.UTC(2026, 10, 1), toMs: Date.UTC(2026, 10, 8) };

/** A week of skewed AR(1) points every 2 minutes over the period. */
function series(seed: number): ChartSeries {
  const r = splitmix64Fast(seed);
  const ar = new Ar1(0.3);
  const times = Array.from({ length: 5040 }, (_, i) => PERIOD.fromMs + i * 120_000);
  const values = times.map(() => 3.3 + 0.01 * ar.next(standardDraw({ kind: 'lognormal', sigma: 0.5 }, r)));
  return { station: { id: STATION } as StationNode, name: 'vcc_3v3', slot: '1', times, values };
}

describe('limits study', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'limits-study-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const control = controlSchema.parse({});

  it('writes the calibration each chart’s study measured', () => {
    const { charts, file } = studyAll([series(7)], { control, period: PERIOD });
    const study = charts[0]!.study;
    if (!study.result.ok) throw new Error('no limits');
    const c = study.result.limits.calibration!;
    const written = file.charts[0]!.calibration!;
    // Seven significant digits of what the study measured.
    expect(written.sd! / c.sigma).toBeCloseTo(1, 6);
    expect(written.phi).toBeCloseTo(c.phi, 6);
    expect(written.skewness).toBeCloseTo(c.skewness, 6);
    expect(written.excess_kurtosis).toBeCloseTo(c.excessKurtosis ?? 0, 6);
    // The data's shape: AR(1) 0.3 (estimated on 5,040 points: ±0.03), lognormal skewness 1.75 (shrunk).
    expect(written.phi).toBeGreaterThan(0.24);
    expect(written.phi).toBeLessThan(0.36);
    expect(written.skewness).toBeGreaterThan(0.5);
  });

  it('keeps the calibration from study through approval to the exporter’s loader', async () => {
    const file = path.join(dir, 'limits.yaml');
    const { charts, file: studied } = studyAll([series(8)], { control, period: PERIOD });
    writeFileSync(file, limitsYaml(studied));
    await approveLimits({
      file,
      by: 'j.doe',
      reason: 'Phase I study',
      selectors: [],
      nowMs: PERIOD.toMs + HOUR,
    });
    const loaded = await loadLimitsFile(file);
    const entry = loaded.approved({ station: STATION, metric: 'vcc_3v3', slot: '1', product: null })!;
    const written = studied.charts[0]!.calibration!;
    expect(entry.calibration).toEqual({
      sigma: written.sd,
      phi: written.phi,
      skewness: written.skewness,
      excessKurtosis: written.excess_kurtosis,
    });
    // The approved chart is calibrated as the study's limits were, to the digits written.
    const study = charts[0]!.study;
    if (!study.result.ok) throw new Error('no limits');
    const want = study.result.limits.calibration!;
    const { center, ucl, lcl, sigma } = entry;
    const approved = givenLimits({ center, ucl, lcl, sigma, shape: entry.calibration! });
    const got = approved.ok ? approved.limits.calibration : undefined;
    for (const k of ['center', 'sigma', 'phi', 'skewness', 'logS', 'logM', 'logSd', 'tailWidening'] as const)
      expect(got?.[k]).toBeCloseTo(want[k], 6);
  });

  it('drops an approval when the calibration changed though the limits did not', () => {
    const { file: first } = studyAll([series(9)], { control, period: PERIOD });
    const entry = first.charts[0]!;
    const approved = { ...entry, approved_by: 'j.doe', approved_at: '2026-11-09T00:00:00Z', reason: 'r' };
    const kept = studyAll([series(9)], {
      control,
      period: PERIOD,
      previous: { version: 1, charts: [approved] },
    });
    expect(kept.charts[0]!.approval).toBe('kept');
    const other = { ...approved, calibration: { ...entry.calibration!, phi: 0 } };
    const dropped = studyAll([series(9)], {
      control,
      period: PERIOD,
      previous: { version: 1, charts: [other] },
    });
    expect(dropped.charts[0]!.approval).toBe('dropped');
  });
});
