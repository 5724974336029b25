/**
 * The "Control charts" section of the bench report (issue 13): the cost of control-rule
 * evaluation with control on for 5 names on every station of the plant, measured by
 * bench/spc/control.ts in a child process, next to the main run's event-loop figures.
 */
import { renderTable } from '../exporter/report.ts';
import { type BenchResults, TARGETS } from '../exporter/rows.ts';
import { stationCount } from '../exporter/scale.ts';
import { runChild } from '../shared/child.ts';
import * as f from '../shared/format.ts';
import { alwaysSeriesPerChart, type ControlBenchResult, pollStats } from './control.ts';

/** Rolling baseline of the bench: a day of records (the default 7d holds seven times as many). */
const BASELINE_HOURS = 24;

const isResult = (msg: unknown): msg is ControlBenchResult =>
  typeof msg === 'object' && msg !== null && 'pollMs' in msg;

/** Runs the control bench at the run's plant size and renders its section. */
export async function controlSection(r: BenchResults): Promise<string> {
  process.stderr.write('bench: control charts (own process)\n');
  const stations = stationCount(r.params.scale);
  const c = await runChild(
    new URL('./control-child.ts', import.meta.url),
    { stations, baselineHours: BASELINE_HOURS },
    isResult,
  );
  return renderControlSection(c, r);
}

/** The section's Markdown. */
export function renderControlSection(c: ControlBenchResult, r: BenchResults): string {
  const { fastest, median } = pollStats(c);
  const charts = c.stations * c.names;
  const today = r.steady.maxBlockMs;
  const rows = [
    {
      measure: `Control charts: time per poll (${f.count(charts)} charts, ${c.pollMs.length} polls)`,
      value: `median ${f.ms(median)}, fastest ${f.ms(fastest)} (${f.ms((median / charts) * 1000)} per 1,000 charts)`,
    },
    {
      measure: 'Control charts: extra series',
      value:
        `${f.count(c.series)} now (${f.count(c.outOfControl)} charts out of control by chance); steady ` +
        `${f.count(c.maxSeries)} (${c.seriesPerChart} per chart in steady state, ${alwaysSeriesPerChart()} of them whatever the detectors; sparse ones on top)`,
    },
    {
      measure: 'Control charts: render of the extra series',
      value: `${f.ms(c.renderMs)} both formats`,
    },
    {
      measure: 'Control charts: worst event-loop block',
      value: `${f.ms(c.maxBlockMs)} (main run, steady-state poll without control: ${f.ms(today)})`,
      target: `≤ ${f.ms(TARGETS.loopBlockMs)}`,
      ok: c.maxBlockMs <= TARGETS.loopBlockMs,
    },
    {
      measure: 'Control charts: history memory (store and charts, after a full GC)',
      value:
        `${f.mib(c.storeBytes)} (${f.count(Math.round(c.storeBytes / 1024 / Math.max(1, c.charts)))} KiB per chart; ` +
        `${f.count(c.records)} records in the store); ${f.mib(c.loadingBytes)} while the first poll loads the history ` +
        `(highest RSS of the bench process then ${f.mib(c.loadingPeakRss)})`,
    },
  ];
  return [
    '',
    '## Control charts',
    '',
    `Control on for ${c.names} names on every one of the ${f.count(c.stations)} stations: one record per station and ` +
      `name every 2 minutes, a rolling ${c.baselineHours}h baseline, a 1h evaluation window and all eight rules ` +
      '(`bench/spc/control.ts`, in a process of its own). The store is filled directly, then the charts of one poll ' +
      '(limits of every baseline, rules over every window, families) are computed in slices between yields to the event loop, ' +
      'under an event-loop monitor, each poll 2 minutes after the last with one new point per chart. The baseline ' +
      'is kept in time buckets (docs/measurements.md, Memory of a chart), so neither the memory nor the time per ' +
      'poll grows with its length.',
    '',
    renderTable(rows),
    '',
  ].join('\n');
}
