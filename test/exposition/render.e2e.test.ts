import { describe, expect, it, vi } from 'vitest';
import { type Family, LabelSet } from '../../src/exposition/model.ts';
import { formatValue, type StreamOptions, type TextFormat } from '../../src/exposition/render.ts';
import { checkMetrics, promtoolPath } from '../helpers/promtool.ts';
import { renderFamilies, renderFamiliesInSteps } from '../helpers/render.ts';
import { largeFamilies, representative } from './families.ts';

const S = 'site="Nürnberg \\"Süd\\"",station="st\\\\1\\nb"';

const TEXT = [
  '# HELP station_units_total Units tested.\\nFrom /units "output".',
  '# TYPE station_units_total counter',
  `station_units_total{${S}} 42`,
  '# HELP station_first_pass_yield_ratio First pass yield C:\\\\x.',
  '# TYPE station_first_pass_yield_ratio gauge',
  `station_first_pass_yield_ratio{${S}} 0.125`,
  'station_first_pass_yield_ratio{station="nan"} NaN',
  'station_first_pass_yield_ratio{station="pinf"} +Inf',
  'station_first_pass_yield_ratio{station="ninf"} -Inf',
  '# HELP station_test_duration_seconds Test durations.',
  '# TYPE station_test_duration_seconds histogram',
  `station_test_duration_seconds_bucket{${S},le="1"} 1`,
  `station_test_duration_seconds_bucket{${S},le="+Inf"} 2`,
  `station_test_duration_seconds_sum{${S}} 3.5`,
  `station_test_duration_seconds_count{${S}} 2`,
  '# HELP station_info Station metadata.',
  '# TYPE station_info gauge',
  'station_info{station="a",description="Ünïcødé ✓"} 1',
  '# HELP station_empty No samples yet.',
  '# TYPE station_empty gauge',
  '# HELP station_up Plain gauge.',
  '# TYPE station_up gauge',
  'station_up 1',
  '',
].join('\n');

const OPENMETRICS = TEXT.replace(
  '# HELP station_units_total Units tested.\\nFrom /units "output".\n# TYPE station_units_total counter',
  '# HELP station_units Units tested.\\nFrom /units \\"output\\".\n# TYPE station_units counter',
).replace(
  '# TYPE station_test_duration_seconds histogram\n',
  '# TYPE station_test_duration_seconds histogram\n# UNIT station_test_duration_seconds seconds\n',
);

const promtool = promtoolPath();

describe('renderFamilies', () => {
  it('renders the text format with escaping, special values, histograms and empty families', () => {
    expect(renderFamilies(representative, 'text')).toBe(TEXT);
  });

  it('renders OpenMetrics: counter family names without _total, UNIT lines, quotes escaped in HELP', () => {
    expect(OPENMETRICS).not.toBe(TEXT);
    expect(renderFamilies(representative, 'openmetrics')).toBe(OPENMETRICS);
  });

  it('adds _total to OpenMetrics samples of a counter named without it', () => {
    const fam: Family = {
      desc: { name: 'jobs', kind: 'counter', help: 'h' },
      samples: [{ labels: LabelSet.EMPTY, value: 3 }],
    };
    expect(renderFamilies([fam], 'openmetrics')).toBe('# HELP jobs h\n# TYPE jobs counter\njobs_total 3\n');
    expect(renderFamilies([fam], 'text')).toBe('# HELP jobs h\n# TYPE jobs counter\njobs 3\n');
  });

  it('leaves out a UNIT that is not a suffix of the family name', () => {
    const fam: Family = { desc: { name: 'x_ratio', kind: 'gauge', help: 'h', unit: 'seconds' }, samples: [] };
    expect(renderFamilies([fam], 'openmetrics')).toBe('# HELP x_ratio h\n# TYPE x_ratio gauge\n');
  });

  it('renders nothing for no families', () => {
    expect(renderFamilies([], 'text')).toBe('');
  });

  it.skipIf(!promtool && !process.env.CI)('produces text that promtool check metrics accepts', () => {
    const r = checkMetrics(renderFamilies(representative, 'text'));
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  });

  it.skipIf(!promtool && !process.env.CI)('is checked by a promtool that can reject', () => {
    const bad = renderFamilies([{ desc: { name: 'bad', kind: 'counter', help: 'h' }, samples: [] }], 'text');
    expect(checkMetrics(`${bad}bad{x="1"} 1\nbad{x="1"} 2\n`).ok).toBe(false);
  });
});

describe('formatValue', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-7, '-7'],
    [0.1, '0.1'],
    [1 / 3, '0.3333333333333333'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-7'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, '+Inf'],
    [Number.NEGATIVE_INFINITY, '-Inf'],
  ])('%s -> %s', (v, s) => {
    expect(formatValue(v)).toBe(s);
    if (Number.isFinite(v)) expect(Number(s)).toBe(v === 0 ? 0 : v);
  });
});

/** The stepped render as one string. */
async function renderFamiliesAsync(
  families: Parameters<typeof renderFamilies>[0],
  format: TextFormat,
  opts: Omit<StreamOptions, 'consume'> = {},
): Promise<string> {
  return Buffer.concat((await renderFamiliesInSteps(families, format, opts)).chunks).toString('utf8');
}

describe('renderFamiliesInto', () => {
  const large = largeFamilies(500, 7);

  it.each([1, 3, 499, 500, 501, 20_000])(
    'equals the sync render when yielding every %i samples',
    async (n) => {
      for (const format of ['text', 'openmetrics'] as const) {
        expect(await renderFamiliesAsync(large, format, { yieldEvery: n })).toBe(
          renderFamilies(large, format),
        );
      }
    },
  );

  it('equals the sync render for the representative set, including empty families', async () => {
    expect(await renderFamiliesAsync(representative, 'openmetrics', { yieldEvery: 1 })).toBe(OPENMETRICS);
  });

  it('yields to the event loop between chunks', async () => {
    let done = false;
    let turns = 0;
    const spin = () => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    await renderFamiliesAsync(large, 'text', { yieldEvery: 100 });
    done = true;
    // 3500 samples in chunks of 100: the loop gets a turn between each pair of chunks.
    expect(turns).toBeGreaterThanOrEqual(30);
  });

  it('returns UTF-8 chunks that concatenate to the sync render, with the sample count', async () => {
    // A clock that advances 5 ms per reading: each step reads it twice (before and after).
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 5));
    const r = await renderFamiliesInSteps(representative, 'text', { yieldEvery: 2 });
    vi.restoreAllMocks();
    expect(r.chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(r.chunks).toString('utf8')).toBe(TEXT);
    expect(r.samples).toBe(11);
    // 11 samples two per step: 6 steps, 5 ms each; time between steps (yielded) is not counted.
    expect(r.busyMs).toBe(6 * 5);
  });

  it('writes multi-byte labels whole across the block boundaries of a large body', async () => {
    // 4,000 lines of 3-byte and 4-byte characters: the body spans blocks of several sizes.
    const names = ['東京工場', 'Straße 🏭', 'Łódź ✓'];
    const samples = Array.from({ length: 4000 }, (_, i) => ({
      labels: LabelSet.of({ site: names[i % 3]!, n: String(i) }),
      value: i / 8,
    }));
    const fam: Family = { desc: { name: 'x_ratio', kind: 'gauge', help: 'Ünïcødé.' }, samples };
    const expected = [
      '# HELP x_ratio Ünïcødé.',
      '# TYPE x_ratio gauge',
      ...samples.map((_, i) => `x_ratio{site="${names[i % 3]}",n="${i}"} ${i / 8}`),
      '',
    ].join('\n');
    expect(renderFamilies([fam], 'text')).toBe(expected);
    for (const n of [7, 1000, 20_000]) {
      expect(await renderFamiliesAsync([fam], 'text', { yieldEvery: n })).toBe(expected);
    }
  });

  it('renders a line longer than the largest block', async () => {
    const long = 'é'.repeat(1_500_000);
    const fam: Family = {
      desc: { name: 'big', kind: 'gauge', help: 'h' },
      samples: [
        { labels: LabelSet.of({ a: 'x' }), value: 1 },
        { labels: LabelSet.of({ a: long }), value: 2 },
        { labels: LabelSet.of({ a: 'y' }), value: 3 },
      ],
    };
    const expected = `# HELP big h\n# TYPE big gauge\nbig{a="x"} 1\nbig{a="${long}"} 2\nbig{a="y"} 3\n`;
    expect(await renderFamiliesAsync([fam], 'text', { yieldEvery: 1 })).toBe(expected);
  });

  it('renders 100k series as 100k sample lines plus HELP/TYPE per family', async () => {
    const fams = largeFamilies(2000, 50);
    const text = await renderFamiliesAsync(fams, 'text');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBe(100_000 + 2 * 50);
    expect(lines.filter((l) => !l.startsWith('#')).length).toBe(100_000);
  });
});
