/**
 * The limits file as the `limits` commands read, write and approve it: problems named by their
 * path, a written file read back unchanged, approvals set in place (comments kept), and an
 * entry without a reason refused with nothing written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { approveLimits, parseSelector } from '../../../src/app/limits/approve.ts';
import { exclusionSpan, type LimitsEntry, limitsYaml, readLimitsFile } from '../../../src/app/limits/file.ts';
import { LimitsFileError } from '../../../src/config/limits-schema.ts';

const STATION = '65a1f0c2e4b0a1b2c3d4e5f6';

function entry(over: Partial<LimitsEntry> = {}): LimitsEntry {
  return {
    station: STATION,
    metric: 'vcc_3v3',
    slot: null,
    product: null,
    center: 3.3012,
    sigma: 0.0121,
    ucl: 3.3375,
    lcl: 3.2649,
    study: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z', points: 5040, excluded_points: 12 },
    excluded: [
      { from: '2026-11-03T10:00:00Z', to: '2026-11-03T11:30:00Z', cause: 'fixture 2 swapped' },
      { at: '2026-11-05T08:14:00Z', cause: 'operator re-seated unit' },
    ],
    approved_by: null,
    approved_at: null,
    reason: null,
    ...over,
  };
}

describe('limits file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'limits-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  /** Reads YAML text as the commands read a file: through the exporter's loader. */
  async function limitsFromText(text: string) {
    const file = path.join(dir, `read-${++files}.yaml`);
    writeFileSync(file, text);
    return readLimitsFile(file);
  }

  it('reads back what it writes', async () => {
    const file = { version: 1 as const, charts: [entry(), entry({ slot: '2', reason: 'initial' })] };
    expect(await limitsFromText(limitsYaml(file))).toEqual(file);
  });

  it('quotes station ids, and reads an entry without a study (one from a control plan)', async () => {
    const digits = '123456789012345678901234';
    const { study: _, ...planned } = entry({ station: digits });
    const text = limitsYaml({ version: 1, charts: [planned] });
    expect(text).toContain(`station: "${digits}"`);
    const back = (await limitsFromText(text)).charts[0]!;
    expect(back.station).toBe(digits);
    expect(back.study).toBeUndefined();
  });

  it('reads with the exporter’s loader: its problems, each by its path', async () => {
    const bad = {
      version: 1,
      charts: [
        { ...entry(), lcl: 3.4, study: { ...entry().study, to: '2026-10-01T00:00:00Z' } },
        { ...entry(), station: 'nothex', excluded: [{ at: '2026-11-05 08:14', cause: '' }] },
        entry({ station: STATION.toUpperCase() }),
      ],
    };
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, stringify(bad));
    const error = await readLimitsFile(file).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LimitsFileError);
    expect((error as LimitsFileError).issues).toEqual([
      `${file}: charts[0].study.to: must be after from`,
      `${file}: charts[0].lcl: must be below center`,
      `${file}: charts[1].station: must be a 24-character hexadecimal id, got "nothex"`,
      `${file}: charts[1].excluded[0].at: must be an RFC 3339 time with an offset, such as 2025-03-01T00:00:00Z, got "2026-11-05 08:14"`,
      `${file}: charts[1].excluded[0].cause: must not be empty`,
      `${file}: charts[2]: the same chart as charts[0] (station, metric, slot and product)`,
    ]);
    await expect(readLimitsFile(path.join(dir, 'none.yaml'))).rejects.toThrow(/cannot read the file/);
  });

  it('writes the loaded times in UTC, a point exclusion as at', async () => {
    const text = limitsYaml({ version: 1, charts: [entry()] }).replace(
      'from: 2026-11-03T10:00:00Z',
      'from: 2026-11-03T11:00:00+01:00',
    );
    const back = (await limitsFromText(text)).charts[0]!;
    expect(back.excluded).toEqual(entry().excluded);
  });

  it('excludes [from, to) of a span, and the one millisecond of a point', () => {
    const [span, point] = entry().excluded.map(exclusionSpan);
    expect(span).toEqual({
      fromMs: Date.parse('2026-11-03T10:00:00Z'),
      toMs: Date.parse('2026-11-03T11:30:00Z'),
    });
    expect(point!.toMs - point!.fromMs).toBe(1);
  });

  it('approves the chosen entries in place, keeping comments', async () => {
    const file = path.join(dir, 'approve.yaml');
    const text = limitsYaml({ version: 1, charts: [entry({ slot: '1' }), entry({ slot: '2' })] });
    writeFileSync(file, `# reviewed in the weekly quality meeting\n${text}`);
    const chosen = await approveLimits({
      file,
      by: 'j.doe',
      reason: 'initial Phase I study',
      selectors: [parseSelector('metric=vcc_3v3,slot=2')],
      nowMs: Date.parse('2026-11-09T09:00:00Z'),
    });
    expect(chosen).toEqual([1]);
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith('# reviewed in the weekly quality meeting\n')).toBe(true);
    const charts = (await limitsFromText(after)).charts;
    expect(charts[0]!.approved_by).toBeNull();
    expect(charts[1]).toMatchObject({
      approved_by: 'j.doe',
      approved_at: '2026-11-09T09:00:00Z',
      reason: 'initial Phase I study',
    });
  });

  it('refuses entries without a reason and writes nothing; a reason in the file is enough', async () => {
    const file = path.join(dir, 'refuse.yaml');
    const text = limitsYaml({
      version: 1,
      charts: [entry({ slot: '1', reason: 'after the fixture swap' }), entry({ slot: '2' })],
    });
    writeFileSync(file, text);
    const approve = (selector?: string) =>
      approveLimits({ file, by: 'j.doe', selectors: selector ? [parseSelector(selector)] : [], nowMs: 0 });
    await expect(approve()).rejects.toThrow(/refused, no reason: charts\[1\]\.reason/);
    expect(readFileSync(file, 'utf8')).toBe(text);
    await expect(approve('slot=1')).resolves.toEqual([0]);
    await expect(approve('slot=3')).rejects.toThrow(/no entry matches/);
    expect(() => parseSelector('slot')).toThrow(/key=value|station\|metric/);
  });
});
