import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BenchResults,
  median,
  medianRows,
  readResultsFiles,
  renderResultsMarkdown,
  rowPasses,
  writeResults,
} from '../../../bench/shared/results.ts';
import { renderCurveSvg } from '../../../bench/shared/svg.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function place() {
  const d = mkdtempSync(join(tmpdir(), 'bench-results-'));
  dirs.push(d);
  return { dir: pathToFileURL(`${d}/results/`), markdown: pathToFileURL(`${d}/RESULTS.md`), root: d };
}

const sample: BenchResults = {
  name: 'demo-bench',
  title: 'Demo bench',
  command: 'npm run bench:demo -- --seed=1',
  setup: '10 charts for 1 day.',
  rows: [
    {
      measure: 'Chance signals',
      value: 3.2,
      unit: 'per day',
      runs: [3.2, 2.9, 4.1],
      target: { op: '<=', bound: 5 },
    },
    { measure: 'Delay at 1 sigma', value: 70, unit: 'min', target: { op: '<=', bound: 60 } },
    { measure: 'Charts', value: 1000, unit: 'charts' },
  ],
  curves: [
    {
      id: 'delay',
      title: 'Delay <by> shift',
      x: { label: 'shift (sigma)' },
      y: { label: 'points', scale: 'log' },
      series: [
        {
          name: 'measured',
          points: [
            [1, 30],
            [2, 8],
            [3, 3],
          ],
        },
        {
          name: 'limit',
          points: [
            [1, 12],
            [2, 3],
            [3, 0],
          ],
          dashed: true,
        },
      ],
    },
  ],
  notes: ['A note.'],
};

describe('bench results', () => {
  it('judges rows against their targets, a missing value as a miss', () => {
    expect(rowPasses(sample.rows[0]!)).toBe(true);
    expect(rowPasses(sample.rows[1]!)).toBe(false);
    expect(rowPasses(sample.rows[2]!)).toBeUndefined();
    expect(rowPasses({ measure: 'x', value: undefined, unit: '', target: { op: '>=', bound: 1 } })).toBe(
      false,
    );
    expect(rowPasses({ measure: 'x', value: 1, unit: '', target: { op: '>=', bound: 1 } })).toBe(true);
  });

  it('takes medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });

  it('combines runs row by row, with the words of the run that holds the median', () => {
    const run = (value: number | undefined, detail: string) => [
      { measure: 'poll', value, unit: 'ms', detail },
      { measure: 'rss', value: 100, unit: 'MiB' },
    ];
    const rows = medianRows([run(30, 'a'), run(10, 'b'), run(20, 'c')]);
    expect(rows[0]).toMatchObject({ value: 20, runs: [30, 10, 20], detail: 'c' });
    expect(rows[1]).toMatchObject({ value: 100, runs: [100, 100, 100] });
    expect(medianRows([run(30, 'a'), run(undefined, 'b')])[0]!.value).toBeUndefined();
    expect(medianRows([run(5, 'a')])).toEqual(run(5, 'a'));
    expect(() => medianRows([run(1, 'a'), run(2, 'b').slice(1)])).toThrow();
    expect(() => medianRows([])).toThrow();
  });

  it('writes the file and its curves, and generates the markdown from every file', () => {
    const p = place();
    const file = writeResults(sample, { startedAt: Date.now() - 1500 }, p);
    expect(file.pass).toBe(false);
    expect(file.format).toBe(1);
    expect(file.seconds).toBeGreaterThanOrEqual(1.5);
    expect(readdirSync(`${p.root}/results`).sort()).toEqual(['demo-bench-delay.svg', 'demo-bench.json']);
    writeResults(
      { ...sample, name: 'other', title: 'Other', rows: [sample.rows[0]!], curves: [] },
      { startedAt: Date.now() },
      p,
    );
    const files = readResultsFiles(p.dir);
    expect(files.map((f) => f.name)).toEqual(['demo-bench', 'other']);
    const md = readFileSync(p.markdown, 'utf8');
    expect(md).toBe(renderResultsMarkdown(files));
    expect(md).toContain('| [Demo bench](#demo-bench) | `npm run bench:demo -- --seed=1` |');
    expect(md).toContain('**1 of 2 missed**');
    expect(md).toContain('| [Other](#other) |');
    expect(md).toContain('| Chance signals | 3.2 (median of 3.2, 2.9, 4.1) | per day |  | ≤ 5 | pass |');
    expect(md).toContain('| Delay at 1 sigma | 70 | min |  | ≤ 60 | **miss** |');
    expect(md).toContain('![Delay <by> shift](results/demo-bench-delay.svg)');
  });

  it('refuses a name that is not a plain file stem', () => {
    expect(() => writeResults({ ...sample, name: '../x' }, { startedAt: 0 }, place())).toThrow(/name/);
  });

  it('draws each series, leaves out what a log axis cannot show, and escapes text', () => {
    const svg = renderCurveSvg(sample.curves![0]!);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Delay &lt;by&gt; shift');
    const lines = svg.match(/<polyline [^>]*points="([^"]*)"/g) ?? [];
    expect(lines).toHaveLength(2);
    // the limit's point at 0 has no place on a log axis: two points remain
    expect(lines[1]!.match(/points="([^"]*)"/)![1]!.split(' ')).toHaveLength(2);
    expect(svg).toContain('stroke-dasharray');
  });
});

describe('bench/RESULTS.md', () => {
  it('is generated from bench/results/*.json (run a bench, never edit it)', () => {
    const files = readResultsFiles();
    expect(files.map((f) => f.name)).toContain('exporter');
    const committed = readFileSync(new URL('../../../bench/RESULTS.md', import.meta.url), 'utf8');
    if (committed !== renderResultsMarkdown(files)) {
      expect.fail(
        'bench/RESULTS.md differs from renderResultsMarkdown(readResultsFiles()): a bench writes it',
      );
    }
  });
});
