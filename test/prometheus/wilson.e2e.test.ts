/**
 * The yield and retry alerts' Wilson bounds: an implementation written here, checked against
 * published intervals, then used to check the recording rules' PromQL through promtool on a
 * grid of counts (small, large, 0 and all), so the rules' arithmetic cannot drift.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { promtoolPath } from '../helpers/promtool.ts';

/** Wilson score interval of x successes in n at normal quantile z. */
function wilson(x: number, n: number, z: number): [number, number] {
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [centre - half, centre + half];
}

/** One-sided 99 %: the normal quantile the rules use. */
const Z99 = 2.326348;

describe('Wilson score bounds', () => {
  it('match published 95 % intervals', () => {
    // Newcombe (1998), Statistics in Medicine 17, table I: 81/263 -> 0.2553 to 0.3662;
    // 0/10 -> 0 to 0.2775; 1/29 -> 0.0061 to 0.1718.
    const cases: Array<[number, number, number, number]> = [
      [81, 263, 0.2553, 0.3662],
      [0, 10, 0, 0.2775],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, lo, hi] of cases) {
      const [l, h] = wilson(x, n, 1.959964);
      expect(l).toBeCloseTo(lo, 4);
      expect(h).toBeCloseTo(hi, 4);
    }
  });

  const bin = promtoolPath();
  it.skipIf(!bin && !process.env.CI)('are what the recording rules compute, at every volume', () => {
    const grid: Array<[number, number]> = [
      [0, 1],
      [1, 1],
      [16, 20],
      [21, 30],
      [29, 30],
      [30, 32],
      [89, 100],
      [270, 300],
      [933, 1000],
      [0, 300],
      [300, 300],
    ];
    const series: Array<{ series: string; values: string }> = [];
    const checks: Array<{
      expr: string;
      eval_time: string;
      exp_samples: Array<{ labels: string; value: number }>;
    }> = [];
    grid.forEach(([x, n], i) => {
      const line = `L${i}`;
      const station = `s${i}`;
      series.push(
        { series: `station_line_final_pass_units{site="S",line="${line}",window="1h"}`, values: `${x}x3` },
        { series: `station_line_unique_output_units{site="S",line="${line}",window="1h"}`, values: `${n}x3` },
        { series: `station_retry_ratio{station_id="${station}",window="1h"}`, values: `${x / n}x3` },
        { series: `station_output_units{station_id="${station}",window="1h"}`, values: `${n}x3` },
      );
      const [lo, hi] = wilson(x, n, Z99);
      // Within 1e-9 of the bound computed here: the comparison yields 1.
      checks.push(
        {
          expr: `abs(site_line:station_line_final_yield_ratio_1h:wilson_upper_bound99{line="${line}"} - ${hi}) < bool 1e-9`,
          eval_time: '2m',
          exp_samples: [{ labels: `{line="${line}",site="S",window="1h"}`, value: 1 }],
        },
        {
          expr: `abs(station:station_retry_ratio_1h:wilson_lower_bound99{station_id="${station}"} - ${lo}) < bool 1e-9`,
          eval_time: '2m',
          exp_samples: [{ labels: `{station_id="${station}",window="1h"}`, value: 1 }],
        },
      );
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'wilson-'));
    const file = path.join(dir, 'wilson.test.yml');
    writeFileSync(
      file,
      stringify({
        rule_files: [path.resolve('prometheus/rules/station-exporter.rules.yml')],
        evaluation_interval: '1m',
        tests: [{ interval: '1m', input_series: series, promql_expr_test: checks }],
      }),
    );
    if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
    const r = spawnSync(bin, ['test', 'rules', file], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});
