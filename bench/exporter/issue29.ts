/**
 * The targets of issue 29 (history in bounded memory), each measured on every `npm run bench`:
 * one table with the measured value, the target and pass/miss. The figures come from the run's
 * own parts: the exporter alone (sized runs), the exporter plus 5,000 control charts in one
 * process (bench/exporter/combined.ts), bench/spc/control.ts at the default 7-day baseline in
 * a child process, the main run's event-loop figures, and the 1,000-station plant run.
 */
import * as f from '../shared/format.ts';
import type { ControlBenchResult } from '../spc/control.ts';
import { pollStats } from '../spc/control.ts';
import type { CombinedOutcome } from './combined.ts';
import { renderTable } from './report.ts';
import { type BenchResults, type Row, TARGETS } from './rows.ts';
import { maxRss } from './sized.ts';

/** Issue 29's targets that the main table does not already evaluate. */
export const ISSUE29_TARGETS = {
  /** The exporter alone at ~100k series plus 5,000 charts at the 7-day baseline, under 512 MiB. */
  combinedRssBytes: 400 * 2 ** 20,
  /** Memory of the charts' history, 5,000 charts at the 7-day baseline. */
  controlHistoryBytes: 128 * 2 ** 20,
  /** Median time per poll of those charts. */
  controlPollMs: 60,
  /** Control series per charted series in steady state, every detector on. */
  controlSeriesPerChart: 12,
  /** Simulated seconds from start until every 15m station summary is there (1,000 stations, 10 requests/s). */
  first15mSeconds: 120,
} as const;

/** What the issue-29 table is made of, besides the main results. */
export interface Issue29Inputs {
  readonly control?: ControlBenchResult;
  readonly combined?: CombinedOutcome;
  /** The 1,000-station plant run's 15m first-snapshot time; undefined when the plant did not run. */
  readonly first15mSeconds?: number;
  /** Why the plant did not run, for the row. */
  readonly plantSkipped?: string;
  /** Wall time of the whole bench so far (the plant runs included). */
  readonly wallMs: number;
}

function rssAloneRows(r: BenchResults): Row[] {
  const s = r.sized;
  if (s === undefined) return [];
  const at = (x: typeof s.limited) => `${f.count(x.series)} series, ${f.count(x.stations)} stations`;
  return [
    {
      measure: `RSS of the exporter alone (target: at ~100k series), under the ${s.limitMiB} MiB limit (highest reading)`,
      value: `${f.mib(maxRss(s.limited))} (${at(s.limited)})`,
      target: `≤ ${f.mib(TARGETS.rssBytes)}`,
      ok: maxRss(s.limited) <= TARGETS.rssBytes,
    },
    {
      measure:
        'RSS of the exporter alone (target: at ~100k series), without a memory limit (highest reading)',
      value: `${f.mib(maxRss(s.unlimited))} (${at(s.unlimited)})`,
      target: `≤ ${f.mib(TARGETS.rssUnlimitedBytes)}`,
      ok: maxRss(s.unlimited) <= TARGETS.rssUnlimitedBytes,
    },
  ];
}

function combinedRow(c: CombinedOutcome | undefined): Row {
  const charts = c?.ok
    ? `${f.count(c.run.control.charts)} control charts (${c.run.control.names} names × ${f.count(c.run.control.stations)} stations, ${c.run.control.baselineHours}h baseline + 1h)`
    : 'the control charts';
  const measure = `Exporter alone (target: ~100k series) plus ${charts}, one process under the memory limit: highest RSS, OOM`;
  const target = `≤ ${f.mib(ISSUE29_TARGETS.combinedRssBytes)}, no OOM`;
  if (c === undefined) return { measure, value: 'not run', target };
  if (!c.ok) {
    return {
      measure,
      value: `**died**: ${c.error}; highest RSS read before ${f.mib(c.highest.rssBytes)} (${c.highest.at}); limit as ${c.how}`,
      target,
      ok: false,
    };
  }
  const { run } = c;
  return {
    measure,
    value:
      `highest ${f.mib(run.highest.rssBytes)} (${run.highest.at}), no OOM; exporter ${f.count(run.series)} series ` +
      `(${f.count(run.stations)} stations), charts ${f.count(run.control.charts)} with ${f.count(run.control.history)} ` +
      `history records; limit as ${c.how}`,
    target,
    ok: run.highest.rssBytes <= ISSUE29_TARGETS.combinedRssBytes,
  };
}

function controlRows(c: ControlBenchResult | undefined): Row[] {
  const label = c
    ? `${f.count(c.charts)} charts (${c.names} names × ${f.count(c.stations)} stations), ${c.baselineHours}h baseline + 1h`
    : 'control charts';
  if (c === undefined) {
    return [{ measure: `Control charts: ${label}`, value: 'not run' }];
  }
  const { median } = pollStats(c);
  const cpu = [...c.pollCpuMs].sort((a, b) => a - b)[c.pollCpuMs.length >> 1] ?? 0;
  return [
    {
      measure: `Control charts, ${label}: history memory (store and charts, after a full GC)`,
      value: `${f.mib(c.storeBytes)} (${(c.storeBytes / 1024 / Math.max(1, c.charts)).toFixed(1)} KiB per chart; ${f.count(c.history)} history records)`,
      target: `≤ ${f.mib(ISSUE29_TARGETS.controlHistoryBytes)}`,
      ok: c.storeBytes <= ISSUE29_TARGETS.controlHistoryBytes,
    },
    {
      measure: `Control charts, ${label}: time per poll (median of ${c.pollMs.length})`,
      value: `${f.ms(median)} wall, ${f.ms(cpu)} CPU (median)`,
      target: `≤ ${f.ms(ISSUE29_TARGETS.controlPollMs)}`,
      ok: median <= ISSUE29_TARGETS.controlPollMs,
    },
    {
      measure: 'Control series per charted series, steady state, every detector on',
      value: `${c.seriesPerChart} (${f.count(c.maxSeries)} at most for ${f.count(c.charts)} charts)`,
      target: `≤ ${ISSUE29_TARGETS.controlSeriesPerChart}`,
      ok: c.seriesPerChart <= ISSUE29_TARGETS.controlSeriesPerChart,
    },
  ];
}

function firstSnapshotRow(x: Issue29Inputs): Row {
  const measure =
    '15m station summaries complete after start (1,000 stations, 10 requests/s; simulated clock, bench/plant)';
  const target = `≤ ${ISSUE29_TARGETS.first15mSeconds} s`;
  if (x.first15mSeconds === undefined) return { measure, value: x.plantSkipped ?? 'not measured', target };
  return {
    measure,
    value: `${f.count(Math.round(x.first15mSeconds))} s`,
    target,
    ok: x.first15mSeconds <= ISSUE29_TARGETS.first15mSeconds,
  };
}

function loopRow(r: BenchResults, c: ControlBenchResult | undefined): Row {
  const main = Math.max(r.first.maxBlockMs, r.steady.maxBlockMs, r.scrapeMaxBlockMs);
  const worst = Math.max(main, c?.maxBlockMs ?? 0);
  return {
    measure: 'Worst event-loop block: the exporter’s polls + render + scrapes, and the control charts’ polls',
    value: `${f.ms(worst)} (exporter ${f.ms(main)}${c ? `, control charts ${f.ms(c.maxBlockMs)}` : ''})`,
    target: `≤ ${f.ms(TARGETS.loopBlockMs)}`,
    ok: worst <= TARGETS.loopBlockMs,
  };
}

/** The rows, in the order of the issue's targets. */
export function issue29Rows(r: BenchResults, x: Issue29Inputs): Row[] {
  return [
    ...rssAloneRows(r),
    ...controlRows(x.control).slice(0, 2),
    combinedRow(x.combined),
    ...controlRows(x.control).slice(2),
    firstSnapshotRow(x),
    loopRow(r, x.control),
  ];
}

/** The section, Markdown. */
export function renderIssue29Section(r: BenchResults, x: Issue29Inputs): string {
  return [
    '',
    '## Issue 29 targets',
    '',
    `Every target of issue 29 from this run (whole bench ${f.ms(x.wallMs)}; RSS rows from the runs above, ` +
      'the control charts from `bench/spc/control.ts` in a child process at the default 7-day baseline, the ' +
      'exporter-plus-charts row from `bench/exporter/combined-child.ts`: the exporter polling the simulator and, once ' +
      'its first poll is done, the charts of `control.ts` loading their history and polling in the same process, ' +
      'compiled to plain JavaScript as the exporter ships (not under tsx), with the RSS sampled every 100 ms and after every history answer).',
    '',
    renderTable(issue29Rows(r, x)),
    '',
  ].join('\n');
}
