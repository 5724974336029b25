/**
 * The approved-limits file: a good file's values, and each mistake reported with the file and
 * the YAML path, all at once; the config loader refusing a config whose limits file is bad.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isApproved,
  LimitsFileError,
  loadLimitsFile,
  loadLimitsFileInThread,
  parseLimits,
} from '../../src/config/limits-schema.ts';
import { ConfigError, configFromObject } from '../../src/config/load.ts';

const STATION = '65a1f0c2e4b0a1b2c3d4e5f6';
const GOOD = `version: 1
charts:
  - station: 65A1F0C2E4B0A1B2C3D4E5F6
    metric: vcc_3v3
    slot: null
    product: null
    center: 3.3012
    sigma: 0.0121
    ucl: 3.3375
    lcl: 3.2649
    study:
      from: 2026-11-01T00:00:00Z
      to: 2026-11-08T00:00:00Z
      points: 5040
      excluded_points: 12
    excluded:
      - { from: 2026-11-03T10:00:00Z, to: 2026-11-03T11:30:00Z, cause: "fixture 2 swapped" }
      - { at: 2026-11-05T08:14:00Z, cause: "operator re-seated unit" }
    approved_by: j.doe
    approved_at: 2026-11-09T09:00:00Z
    reason: "initial Phase I study"
  - station: ${STATION}
    metric: vcc_3v3
    slot: "2"
    center: 3.3
    sigma: 0.01
    ucl: 3.33
    lcl: 3.27
`;

/** The problems a text gives, as the error lists them. */
function problems(text: string): readonly string[] {
  try {
    parseLimits(text, 'limits.yaml');
  } catch (err) {
    if (err instanceof LimitsFileError) return err.issues;
    throw err;
  }
  return [];
}

/** A one-chart file with `lines` (YAML, indented as chart keys) after a valid station and metric. */
const chart = (lines: string) => `version: 1\ncharts:\n  - station: ${STATION}\n    metric: m\n${lines}`;
const LIMITS = '    center: 1\n    sigma: 0.1\n    ucl: 1.3\n    lcl: 0.7\n';

describe('the approved-limits file', () => {
  it('reads a good file into entries, approved ones by chart', () => {
    const file = parseLimits(GOOD, 'limits.yaml');
    const [first, second] = file.charts;
    expect(first).toEqual({
      station: STATION,
      metric: 'vcc_3v3',
      slot: null,
      product: null,
      center: 3.3012,
      sigma: 0.0121,
      ucl: 3.3375,
      lcl: 3.2649,
      study: {
        fromMs: Date.UTC(2026, 10, 1),
        toMs: Date.UTC(2026, 10, 8),
        points: 5040,
        excludedPoints: 12,
      },
      calibration: null,
      excluded: [
        {
          fromMs: Date.UTC(2026, 10, 3, 10),
          toMs: Date.UTC(2026, 10, 3, 11, 30),
          cause: 'fixture 2 swapped',
        },
        {
          fromMs: Date.UTC(2026, 10, 5, 8, 14),
          toMs: Date.UTC(2026, 10, 5, 8, 14),
          cause: 'operator re-seated unit',
        },
      ],
      approvedBy: 'j.doe',
      approvedAtMs: Date.UTC(2026, 10, 9, 9),
      reason: 'initial Phase I study',
    });
    expect(second && isApproved(second)).toBe(false);
    const key = { station: STATION, metric: 'vcc_3v3', product: null };
    expect(file.approved({ ...key, slot: null })).toBe(first);
    // Pending entries are not charted against.
    expect(file.approved({ ...key, slot: '2' })).toBeUndefined();
  });

  it('reads the calibration a study measured, an absent field as none and sd as sigma', () => {
    const full = parseLimits(
      chart(`${LIMITS}    calibration: { sd: 0.12, phi: 0.3, skewness: -1.25, excess_kurtosis: 0.4 }\n`),
      'limits.yaml',
    );
    expect(full.charts[0]!.calibration).toEqual({
      sigma: 0.12,
      phi: 0.3,
      skewness: -1.25,
      excessKurtosis: 0.4,
    });
    const some = parseLimits(chart(`${LIMITS}    calibration: { phi: -0.5 }\n`), 'limits.yaml');
    expect(some.charts[0]!.calibration).toEqual({ sigma: 0.1, phi: -0.5, skewness: 0, excessKurtosis: 0 });
    expect(parseLimits(chart(LIMITS), 'limits.yaml').charts[0]!.calibration).toBeNull();
  });

  it.each([
    [
      chart(`${LIMITS}    calibration: { sd: 0, phi: 0.81, skewness: 4.5, excess_kurtosis: -0.1 }\n`),
      [
        'limits.yaml: charts[0].calibration.sd: must be greater than 0',
        'limits.yaml: charts[0].calibration.phi: must be at most 0.8',
        'limits.yaml: charts[0].calibration.skewness: must be at most 4',
        'limits.yaml: charts[0].calibration.excess_kurtosis: must be at least 0',
      ],
    ],
    [
      chart(`${LIMITS}    calibration: { phi: -0.6, skewness: -4.01, excess_kurtosis: 1, skewnes: 1 }\n`),
      [
        'limits.yaml: charts[0].calibration.phi: must be at least -0.5',
        'limits.yaml: charts[0].calibration.skewness: must be at least -4',
        'limits.yaml: charts[0].calibration.skewnes: unknown key (did you mean "skewness"?)',
      ],
    ],
    [
      chart(`${LIMITS}    calibration: 0.3\n`),
      ['limits.yaml: charts[0].calibration: expected a mapping, got number'],
    ],
  ])('refuses a calibration out of range, naming its path: %#', (text, expected) => {
    expect(problems(text)).toEqual(expected);
  });

  it.each([
    ['version: 2\ncharts: []\n', ['limits.yaml: version: must be 1 (the only version of this format)']],
    ['charts: []\n', ['limits.yaml: version: must be 1 (the only version of this format)']],
    ['- 1\n', ['limits.yaml: the top level must be a mapping with version and charts']],
    ['', ['limits.yaml: the file is empty']],
    [chart(`${LIMITS}    sigam: 1\n`), ['limits.yaml: charts[0].sigam: unknown key (did you mean "sigma"?)']],
    [
      chart('    center: 1\n    sigma: 0\n    ucl: 0.9\n    lcl: 1.1\n'),
      [
        'limits.yaml: charts[0].sigma: must be greater than 0',
        'limits.yaml: charts[0].lcl: must be below center',
        'limits.yaml: charts[0].ucl: must be above center',
      ],
    ],
    [
      chart(`${LIMITS}    approved_by: j.doe\n`),
      [
        'limits.yaml: charts[0].approved_at: is required with approved_by',
        'limits.yaml: charts[0].reason: is required to approve',
      ],
    ],
    [
      chart(
        `${LIMITS}    study: { from: 2026-11-08T00:00:00Z, to: 2026-11-01T00:00:00Z, points: 1, excluded_points: 0 }\n`,
      ),
      ['limits.yaml: charts[0].study.to: must be after from'],
    ],
    [
      chart(
        `${LIMITS}    excluded:\n      - { from: 2026-11-03T10:00:00Z, cause: x }\n      - { at: 2026-11-05, cause: y }\n      - { at: 2026-11-05T00:00:00Z, to: 2026-11-06T00:00:00Z, cause: z }\n      - { at: 2026-11-05T00:00:00Z, cuase: z }\n`,
      ),
      [
        'limits.yaml: charts[0].excluded[0].to: is required',
        'limits.yaml: charts[0].excluded[1].at: must be an RFC 3339 time with an offset, such as 2025-03-01T00:00:00Z, got "2026-11-05"',
        'limits.yaml: charts[0].excluded[2]: set either at (one point) or from and to, not both',
        'limits.yaml: charts[0].excluded[3].cause: is required',
        'limits.yaml: charts[0].excluded[3].cuase: unknown key (did you mean "cause"?)',
      ],
    ],
    [
      `version: 1\ncharts:\n  - station: 123456789012345678901234\n    metric: m\n${LIMITS}`,
      ['limits.yaml: charts[0].station: must be quoted ("..."): YAML reads an id of digits only as a number'],
    ],
    [
      chart(
        `${LIMITS}    approved_by: "Bearer abcdefghijklmnopqrstuvwxyz0123456789"\n    approved_at: 2026-11-09T09:00:00Z\n    reason: r\n`,
      ),
      [
        'limits.yaml: charts[0].approved_by: looks like a credential; it would be exported as a label value on /metrics',
      ],
    ],
    [
      `${chart(LIMITS)}  - station: ${STATION.toUpperCase()}\n    metric: m\n    slot: null\n${LIMITS}`,
      ['limits.yaml: charts[1]: the same chart as charts[0] (station, metric, slot and product)'],
    ],
    ['version: 1\ncharts: []\nversion: 1\n', ['limits.yaml: line 3, column 1: Map keys must be unique']],
  ])('reports every problem with its path: %#', (text, expected) => {
    expect(problems(text)).toEqual(expected);
  });
});

describe('measurements.control.limits_file in the config', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'limits-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (limitsFile: string) =>
    configFromObject(
      {
        upstream: { base_url: 'http://fake', token: 't' },
        measurements: { enabled: true, names: ['m'], control: { names: ['m'], limits_file: limitsFile } },
      },
      { env: {}, baseDir: dir },
    );

  it('resolves the file against the config file’s directory', () => {
    writeFileSync(join(dir, 'limits.yaml'), GOOD);
    expect(config('limits.yaml').measurements.control.limitsFile).toBe(join(dir, 'limits.yaml'));
  });

  it('refuses a config whose limits file is bad, naming both paths', () => {
    writeFileSync(join(dir, 'limits.yaml'), chart('    center: 1\n    sigma: -1\n    ucl: 2\n    lcl: 0\n'));
    expect(() => config('limits.yaml')).toThrow(ConfigError);
    try {
      config('limits.yaml');
    } catch (err) {
      expect((err as ConfigError).issues).toEqual([
        `measurements.control.limits_file: ${join(dir, 'limits.yaml')}: charts[0].sigma: must be greater than 0`,
      ]);
    }
    expect(() => config('missing.yaml')).toThrow(
      `measurements.control.limits_file: cannot read ${join(dir, 'missing.yaml')}: no such file`,
    );
  });

  it('loads the file from disk as the collector does', async () => {
    writeFileSync(join(dir, 'limits.yaml'), GOOD);
    const file = await loadLimitsFile(join(dir, 'limits.yaml'));
    expect(file.charts).toHaveLength(2);
    await expect(loadLimitsFile(join(dir, 'nope.yaml'))).rejects.toThrow(
      'cannot read the file: no such file',
    );
  });

  it('loads the same file in a worker thread, problems and all', async () => {
    // A comment pads the files past the 16 KiB that are parsed on the event loop.
    const pad = `# ${'padding '.repeat(2_500)}\n`;
    const good = join(dir, 'limits.yaml');
    writeFileSync(good, GOOD + pad);
    const inThread = await loadLimitsFileInThread(good);
    expect(inThread.charts).toEqual((await loadLimitsFile(good)).charts);
    expect(inThread.source).toBe(good);
    expect(inThread.approved({ station: STATION, metric: 'vcc_3v3', slot: null, product: null })).toBe(
      inThread.charts[0],
    );
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, chart('    center: 1\n    sigma: 0\n    ucl: 0.9\n    lcl: 1.1\n') + pad);
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (err: unknown) => err as LimitsFileError,
      );
    const direct = (await failure(loadLimitsFile(bad))) as LimitsFileError;
    const threaded = (await failure(loadLimitsFileInThread(bad))) as LimitsFileError;
    expect(threaded).toBeInstanceOf(LimitsFileError);
    expect(threaded.issues).toEqual(direct.issues);
    expect(threaded.message).toBe(direct.message);
    await expect(loadLimitsFileInThread(join(dir, 'nope.yaml'))).rejects.toThrow(
      'cannot read the file: no such file',
    );
  });

  it('parses a small file on the event loop with the same result', async () => {
    const small = join(dir, 'small.yaml');
    writeFileSync(small, GOOD);
    expect((await loadLimitsFileInThread(small)).charts).toEqual((await loadLimitsFile(small)).charts);
    const bad = join(dir, 'small-bad.yaml');
    writeFileSync(bad, chart('    center: 1\n    sigma: 0\n    ucl: 0.9\n    lcl: 1.1\n'));
    const issues = async (p: Promise<unknown>) =>
      ((await p.catch((e: unknown) => e)) as LimitsFileError).issues;
    const direct = await issues(loadLimitsFile(bad));
    expect(direct.length).toBeGreaterThan(0);
    expect(await issues(loadLimitsFileInThread(bad))).toEqual(direct);
  });
});
