/**
 * check-config's report of the approved-limits file: approved, pending, unmatched, and the
 * charts frozen or on their baseline for the stations given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { limitsReport } from '../../src/app/limits-report.ts';
import { configFromObject } from '../../src/config/load.ts';

const S1 = '65a1f0c2e4b0a1b2c3d4e5f6';
const S2 = '65a1f0c2e4b0a1b2c3d4e5f7';
const APPROVAL = '    approved_by: j.doe\n    approved_at: 2026-11-09T09:00:00Z\n    reason: study\n';
const entry = (station: string, metric: string, more = '') =>
  `  - station: "${station}"\n    metric: ${metric}\n    center: 1\n    sigma: 0.1\n    ucl: 1.3\n    lcl: 0.7\n${more}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'limits-report-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function config(limitsFile: string | undefined) {
  return configFromObject(
    {
      upstream: { base_url: 'http://fake', token: 't' },
      measurements: {
        enabled: true,
        names: ['vbat', 'vcc'],
        control: { names: ['vbat', 'vcc'], ...(limitsFile ? { limits_file: limitsFile } : {}) },
      },
    },
    { env: {}, baseDir: dir },
  );
}

describe('check-config on approved limits', () => {
  it('says when no file is set', async () => {
    expect(await limitsReport(config(undefined))).toContain('limits_file is not set');
  });

  it('lists pending and unmatched entries, and frozen charts of the discovered stations', async () => {
    writeFileSync(
      join(dir, 'limits.yaml'),
      `version: 1\ncharts:\n${[
        entry(S1, 'vbat', APPROVAL),
        entry(S1, 'vcc', '    slot: "2"\n'),
        entry(S1, 'idle', APPROVAL),
        entry(S2, 'vbat', APPROVAL),
        entry(S1, 'vcc', `    product: P-100\n${APPROVAL}`),
      ].join('')}`,
    );
    const text = await limitsReport(config('limits.yaml'), { stationIds: [S1.toUpperCase()] });
    expect(text).toContain(': 5 entries, 4 approved, 1 pending approval.');
    expect(text).toContain(`charts[1]: station ${S1}, metric vcc, slot 2\n`);
    expect(text).toContain(`charts[2]: station ${S1}, metric idle: its metric is not charted`);
    expect(text).toContain(`charts[3]: station ${S2}, metric vbat: its station is not discovered`);
    expect(text).toContain(
      `charts[4]: station ${S1}, metric vcc, product P-100: charts are not kept per product`,
    );
    // One station, two charted names: S1's vbat frozen, its vcc on the baseline.
    expect(text).toContain('frozen at approved limits: 1 charts, of 1 station-name pairs');
    expect(text).toContain('1 pairs have no approved entry');
  });

  it('asks for the stations when it cannot know them', async () => {
    writeFileSync(join(dir, 'limits.yaml'), `version: 1\ncharts:\n${entry(S1, 'vbat', APPROVAL)}`);
    expect(await limitsReport(config('limits.yaml'))).toContain('give --discover or --stations N');
    expect(await limitsReport(config('limits.yaml'), { stations: 3 })).toContain(
      '5 pairs have no approved entry',
    );
  });
});
