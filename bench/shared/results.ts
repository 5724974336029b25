/**
 * The results format every bench writes: `bench/results/NAME.json` holds the current figures of
 * one bench (its last run, with the machine and the date), `bench/results/NAME-*.svg` its curves,
 * and `bench/RESULTS.md` is generated from all of them (never edited by hand). History lives in
 * git, as `benchstat` compares runs it is given rather than keeping a diary.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describeMachine, type Machine } from './machine.ts';
import { type Curve, renderCurveSvg } from './svg.ts';

/** A target a row is judged against: `value op bound` must hold. */
export interface Target {
  readonly op: '<=' | '>=';
  readonly bound: number;
}

/** One measured figure. `value` is the median of `runs` when the bench repeats itself. */
export interface ResultRow {
  /** What was measured, in words (`Chance notifications a day per 1,000 charts, AR(1) phi 0.1`). */
  readonly measure: string;
  /** The figure the target is judged on; undefined when the run could not measure it. */
  readonly value: number | undefined;
  /** Its unit in words (`per day per 1,000 charts`, `min`, `MiB`). */
  readonly unit: string;
  /** The figure of each run when the bench repeats itself (value is then their median). */
  readonly runs?: readonly number[];
  /** More about the figure (a spread, a bound beside it), shown in the table. */
  readonly detail?: string;
  readonly target?: Target;
}

/** What a bench hands over: its rows, curves and notes; the writer adds the run's facts. */
export interface BenchResults {
  /** File name stem: `bench/results/<name>.json`. Lower case, digits and dashes. */
  readonly name: string;
  readonly title: string;
  /** The command that reproduces the run, arguments included. */
  readonly command: string;
  /** What the run simulated (plant, seeds, days) in one or two sentences. */
  readonly setup: string;
  readonly rows: readonly ResultRow[];
  readonly curves?: readonly Curve[];
  /** How to read the figures (definitions, what a target means); never the story of a run. */
  readonly notes?: readonly string[];
}

/** The file as written: the bench's results and the facts of its run. */
export interface ResultsFile extends BenchResults {
  readonly format: 1;
  readonly date: string;
  readonly seconds: number;
  readonly machine: Machine;
  /** Every row with a target passes. */
  readonly pass: boolean;
}

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DEFAULT_DIR = new URL('../results/', import.meta.url);
const DEFAULT_MARKDOWN = new URL('../RESULTS.md', import.meta.url);

/** Whether `row` meets its target; undefined when it has none. */
export function rowPasses(row: ResultRow): boolean | undefined {
  if (row.target === undefined) return undefined;
  if (row.value === undefined || !Number.isFinite(row.value)) return false;
  return row.target.op === '<=' ? row.value <= row.target.bound : row.value >= row.target.bound;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The rows of several runs of one bench as one list: each row's value is the median of its runs'
 * values, and `runs` lists them. The runs must list the same measures in the same order; the words
 * and detail are those of the run that holds the median (the first run's for an even count).
 */
export function medianRows(runs: readonly (readonly ResultRow[])[]): ResultRow[] {
  const [first, ...rest] = runs;
  if (first === undefined) throw new Error('median rows of no runs');
  if (rest.length === 0) return [...first];
  for (const other of rest) {
    if (other.length !== first.length) throw new Error('runs with different rows cannot be combined');
  }
  return first.map((row, i) => {
    const values = runs.map((r) => r[i]!.value);
    const measured = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (measured.length < values.length) return { ...row, value: undefined };
    const value = median(measured);
    const holder = runs[measured.indexOf(value)]?.[i] ?? row;
    return { ...holder, value, runs: measured };
  });
}

/** Where results go; tests point these at a temporary folder. */
export interface ResultsPlace {
  readonly dir: URL;
  readonly markdown: URL;
}

/**
 * Writes `results` as `NAME.json` (and each curve as `NAME-<curve id>.svg`) into the results
 * folder, then regenerates bench/RESULTS.md from every results file there. Returns the file.
 */
export function writeResults(
  results: BenchResults,
  run: { readonly startedAt: number },
  place: ResultsPlace = { dir: DEFAULT_DIR, markdown: DEFAULT_MARKDOWN },
): ResultsFile {
  if (!NAME.test(results.name)) throw new Error(`bench results name ${JSON.stringify(results.name)}`);
  const passes = results.rows.map(rowPasses);
  const file: ResultsFile = {
    format: 1,
    ...results,
    date: new Date().toISOString(),
    seconds: Math.round((Date.now() - run.startedAt) / 100) / 10,
    machine: describeMachine(),
    pass: passes.every((p) => p !== false),
  };
  mkdirSync(place.dir, { recursive: true });
  writeFileSync(new URL(`${results.name}.json`, place.dir), `${JSON.stringify(file, null, 2)}\n`);
  for (const curve of results.curves ?? []) {
    writeFileSync(new URL(svgName(results.name, curve), place.dir), renderCurveSvg(curve));
  }
  writeFileSync(place.markdown, renderResultsMarkdown(readResultsFiles(place.dir)));
  return file;
}

function svgName(bench: string, curve: Curve): string {
  return `${bench}-${curve.id}.svg`;
}

/** Every `*.json` of the results folder, by name. */
export function readResultsFiles(dir: URL = DEFAULT_DIR): ResultsFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.sort().map((n) => JSON.parse(readFileSync(new URL(n, dir), 'utf8')) as ResultsFile);
}

/** bench/RESULTS.md as generated from `files`: an index, then one section per bench. */
export function renderResultsMarkdown(files: readonly ResultsFile[]): string {
  const out = [
    '# Benchmark results',
    '',
    '<!-- Generated from bench/results/*.json by the benches (bench/shared/results.ts). Do not edit. -->',
    '',
    'Each bench writes its last run to `bench/results/NAME.json` and regenerates this page; earlier',
    "runs are in git's history of those files. How each bench works: bench/README.md.",
    '',
    '| Bench | Command | Run | Targets |',
    '|---|---|---|---|',
    ...files.map(
      (f) =>
        `| [${f.title}](#${anchor(f.title)}) | \`${f.command}\` | ${f.date.slice(0, 10)} | ${verdict(f)} |`,
    ),
  ];
  for (const f of files) out.push('', ...renderSection(f));
  return `${out.join('\n')}\n`;
}

function renderSection(f: ResultsFile): string[] {
  const m = f.machine;
  const lines = [
    `## ${f.title}`,
    '',
    `- Command: \`${f.command}\` (${f.seconds} s)`,
    `- Run: ${f.date}; ${m.cores} cores (${m.cpuModel}), ${Math.round(m.memoryBytes / 2 ** 20)} MiB, Node ${m.node}`,
    `- Setup: ${f.setup}`,
    '',
    '| Measure | Value | Unit | Detail | Target | |',
    '|---|---|---|---|---|---|',
    ...f.rows.map(renderRow),
  ];
  for (const c of f.curves ?? []) lines.push('', `![${c.title}](results/${svgName(f.name, c)})`);
  if (f.notes && f.notes.length > 0) lines.push('', ...f.notes.map((n) => `- ${n}`));
  return lines;
}

function renderRow(r: ResultRow): string {
  const pass = rowPasses(r);
  const value = r.value === undefined ? 'not measured' : formatNumber(r.value);
  const runs = r.runs && r.runs.length > 1 ? ` (median of ${r.runs.map(formatNumber).join(', ')})` : '';
  const target = r.target ? `${r.target.op === '<=' ? '≤' : '≥'} ${formatNumber(r.target.bound)}` : '';
  const mark = pass === undefined ? '' : pass ? 'pass' : '**miss**';
  return `| ${cell(r.measure)} | ${value}${runs} | ${cell(r.unit)} | ${cell(r.detail ?? '')} | ${target} | ${mark} |`;
}

/** Three significant digits, thousands separated; integers as they are. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(n) || 1)));
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function verdict(f: ResultsFile): string {
  const judged = f.rows.filter((r) => r.target !== undefined);
  if (judged.length === 0) return 'none';
  const missed = judged.filter((r) => rowPasses(r) === false).length;
  return missed === 0 ? `${judged.length} pass` : `**${missed} of ${judged.length} missed**`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replaceAll(' ', '-');
}
