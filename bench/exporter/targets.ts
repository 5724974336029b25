/**
 * The memory and latency targets of the defaults' scale that the main rows do not already
 * evaluate, each measured on every `npm run bench`: the control charts at the default 7-day
 * baseline (bench/spc/control.ts in a child process), the exporter alone plus 5,000 control charts
 * in one process under the memory limit (bench/exporter/combined.ts), the 1,000-station plant's
 * first snapshot, and the worst event-loop block of all of them.
 */
import * as f from '../shared/format.ts';
import type { ResultRow } from '../shared/results.ts';
import type { ControlBenchResult } from '../spc/control.ts';
import { alwaysSeriesPerChart, pollStats } from '../spc/control.ts';
import type { CombinedOutcome } from './combined.ts';
import { type BenchResults, TARGETS } from './rows.ts';

/** The targets the main rows do not already evaluate. */
export const CHART_TARGETS = {
  /** The exporter alone at ~100k series plus 5,000 charts at the 7-day baseline, under 512 MiB. */
  combinedRssMiB: 400,
  /** Memory of the charts' history, 5,000 charts at the 7-day baseline. */
  controlHistoryMiB: 128,
  /** Median time per poll of those charts. */
  controlPollMs: 60,
  /** Control series per charted series in steady state, every detector on. */
  controlSeriesPerChart: 12,
  /** Simulated seconds from start until every 15m station summary is there (1,000 stations, 10 requests/s). */
  first15mSeconds: 120,
} as const;

/** What the target rows are made of, besides the main results. */
export interface TargetInputs {
  readonly control?: ControlBenchResult;
  readonly combined?: CombinedOutcome;
  /** The 1,000-station plant run's 15m first-snapshot time; undefined when the plant did not run. */
  readonly first15mSeconds?: number;
  /** Why the plant did not run, for the row. */
  readonly plantSkipped?: string;
}

const MiB = 2 ** 20;
const atMost = (bound: number) => ({ op: '<=', bound }) as const;

function combinedRow(c: CombinedOutcome | undefined): ResultRow {
  const charts = c?.ok
    ? `${f.count(c.run.control.charts)} control charts (${c.run.control.names} names × ${f.count(c.run.control.stations)} stations, ${c.run.control.baselineHours}h baseline + 1h)`
    : 'the control charts';
  const measure = `Exporter alone (~100k series) plus ${charts}, one process under the memory limit: highest RSS (none if killed)`;
  const target = atMost(CHART_TARGETS.combinedRssMiB);
  if (c === undefined) return { measure, value: undefined, unit: 'MiB', detail: 'not run', target };
  if (!c.ok) {
    return {
      measure,
      value: undefined,
      unit: 'MiB',
      detail: `**died**: ${c.error}; highest RSS read before ${f.mib(c.highest.rssBytes)} (${c.highest.at}); limit as ${c.how}`,
      target,
    };
  }
  const { run } = c;
  return {
    measure,
    value: run.highest.rssBytes / MiB,
    unit: 'MiB',
    detail:
      `${run.highest.at}, no OOM; exporter ${f.count(run.series)} series (${f.count(run.stations)} stations), ` +
      `charts ${f.count(run.control.charts)} with ${f.count(run.control.history)} history records; limit as ${c.how}`,
    target,
  };
}

function controlRows(c: ControlBenchResult | undefined): ResultRow[] {
  if (c === undefined) return [{ measure: 'Control charts', value: undefined, unit: '', detail: 'not run' }];
  const label = `${f.count(c.charts)} charts (${c.names} names × ${f.count(c.stations)} stations), ${c.baselineHours}h baseline + 1h`;
  const { median, fastest } = pollStats(c);
  const cpu = [...c.pollCpuMs].sort((a, b) => a - b)[c.pollCpuMs.length >> 1] ?? 0;
  return [
    {
      measure: `Control charts, ${label}: history memory (store and charts, after a full GC)`,
      value: c.storeBytes / MiB,
      unit: 'MiB',
      detail: `${(c.storeBytes / 1024 / Math.max(1, c.charts)).toFixed(1)} KiB per chart; ${f.count(c.history)} history records; ${f.mib(c.loadingBytes)} while the first poll loads the history`,
      target: atMost(CHART_TARGETS.controlHistoryMiB),
    },
    {
      measure: `Control charts, ${label}: time per poll (median of ${c.pollMs.length})`,
      value: median,
      unit: 'ms',
      detail: `${f.ms(cpu)} CPU (median), fastest ${f.ms(fastest)}`,
      target: atMost(CHART_TARGETS.controlPollMs),
    },
    {
      measure: 'Control series per charted series, steady state, every detector on',
      value: c.seriesPerChart,
      unit: 'series',
      detail: `${f.count(c.maxSeries)} at most for ${f.count(c.charts)} charts, ${alwaysSeriesPerChart()} of them whatever the detectors; ${f.count(c.series)} now (${f.count(c.outOfControl)} charts out of control by chance)`,
      target: atMost(CHART_TARGETS.controlSeriesPerChart),
    },
    {
      measure: 'Control charts: render of their series, both text formats',
      value: c.renderMs,
      unit: 'ms',
    },
  ];
}

function firstSnapshotRow(x: TargetInputs): ResultRow {
  const measure =
    '15m station summaries complete after start (1,000 stations, 10 requests/s; simulated clock, bench/plant)';
  const target = atMost(CHART_TARGETS.first15mSeconds);
  if (x.first15mSeconds !== undefined) return { measure, value: x.first15mSeconds, unit: 's', target };
  // Left out on purpose (--quick, --no-plant): nothing to judge. Missing otherwise: a miss.
  return x.plantSkipped === undefined
    ? { measure, value: undefined, unit: 's', detail: 'not measured', target }
    : { measure, value: undefined, unit: 's', detail: x.plantSkipped };
}

function loopRow(r: BenchResults, c: ControlBenchResult | undefined): ResultRow {
  const main = Math.max(r.first.maxBlockMs, r.steady.maxBlockMs, r.scrapeMaxBlockMs);
  return {
    measure: 'Worst event-loop block: the exporter’s polls + render + scrapes, and the control charts’ polls',
    value: Math.max(main, c?.maxBlockMs ?? 0),
    unit: 'ms',
    detail: `exporter ${f.ms(main)}${c ? `, control charts ${f.ms(c.maxBlockMs)}` : ''}`,
    target: atMost(TARGETS.loopBlockMs),
  };
}

/** The rows: the charts, the exporter with them, the first snapshot and the worst block. */
export function targetRows(r: BenchResults, x: TargetInputs): ResultRow[] {
  return [...controlRows(x.control), combinedRow(x.combined), firstSnapshotRow(x), loopRow(r, x.control)];
}
