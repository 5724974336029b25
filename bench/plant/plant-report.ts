/**
 * The "Plant scale" section of bench/RESULTS.md: the three latest full runs (kept in
 * bench/plant-history.json), each with its targets, then the latest run's plan and details.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { configFromObject } from '../../src/config/load.ts';
import { estimateSeries } from '../../src/planning/series-estimate.ts';
import type { PlantResult } from './plant.ts';

/** What one full run contributes to the plant-scale targets. */
export interface PlantRun {
  readonly date: string;
  readonly plants: readonly PlantResult[];
  readonly rssAloneMiB?: number;
  readonly rssAloneSeries?: number;
  readonly renderMsPer100k: number;
  readonly gzipRatio?: number;
}

const HISTORY = new URL('../plant-history.json', import.meta.url);

/** The recorded runs, oldest first (none before the first plant-scale run). */
export function plantRuns(): PlantRun[] {
  return existsSync(HISTORY) ? JSON.parse(readFileSync(HISTORY, 'utf8')) : [];
}

/** Adds a run to the history (the last three are kept) and returns them, oldest first. */
export function recordPlantRun(run: PlantRun): PlantRun[] {
  const runs = [...plantRuns(), run].slice(-3);
  writeFileSync(HISTORY, `${JSON.stringify(runs, null, 1)}\n`);
  return runs;
}

/** Series of the default config for the reference plant: 1,000 stations, 20 names (4 per station), 3 windows. */
export function referenceSeries(): number {
  const config = configFromObject(
    {
      upstream: { base_url: 'http://reference', token: 't' },
      windows: ['15m', '1h', '24h'],
      measurements: { enabled: true, names: Array.from({ length: 20 }, (_, i) => `m${i}`) },
    },
    { env: {}, baseDir: '/' },
  );
  return estimateSeries(config, { stations: 1000, groups: 229, lines: 100, sites: 5, names: 4 }).total;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'pass' : 'FAIL');

function targets(run: PlantRun, series: number): string[][] {
  const k1 = run.plants.find((p) => p.stations === 1000);
  const ach = (w: string) => k1?.refresh.find((r) => r.window === w && r.level === 'station')?.achieved;
  const a15 = ach('15m');
  const a24 = ach('24h');
  const worst = Math.max(...run.plants.map((p) => p.worst10s));
  // Runs recorded before the first-snapshot measure lack it.
  const first15 = k1?.stationSummariesComplete?.['15m'];
  return [
    [
      '15m station summaries complete, after start (1,000 stations, first poll at the ceiling)',
      first15 === undefined ? 'n/a' : `${fmt(first15)} s`,
      '≤ 120 s',
      verdict(first15 === undefined ? undefined : first15 <= 120),
    ],
    [
      '15m station summaries, oldest (1,000 stations)',
      a15 === undefined ? 'not planned' : `${fmt(a15)} s`,
      '≤ 180 s',
      verdict(a15 !== undefined && a15 <= 180),
    ],
    [
      '24h station summaries, oldest (1,000 stations)',
      a24 === undefined ? 'not planned' : `${fmt(a24)} s`,
      '≤ 900 s',
      verdict(a24 !== undefined && a24 <= 900),
    ],
    ['Upstream requests in the worst 10 s (all plants)', fmt(worst), '≤ 100 (10/s)', verdict(worst <= 100)],
    [
      'Default config, reference plant (estimate)',
      `${fmt(series)} series`,
      '≤ 150,000',
      verdict(series <= 150_000),
    ],
    [
      'RSS of the exporter alone at ~100k series (highest reading, under the StatefulSet memory limit; see the main table)',
      run.rssAloneMiB === undefined
        ? 'n/a'
        : `${fmt(run.rssAloneMiB)} MiB at ${fmt(run.rssAloneSeries ?? 0)} series`,
      '≤ 200 MiB',
      // Issue 29: 200 MiB under the limit (250 is the target without one).
      verdict(run.rssAloneMiB === undefined ? undefined : run.rssAloneMiB <= 200),
    ],
    [
      'Render per 100k series (synthetic, both formats; the slower of under and without the memory limit)',
      `${fmt(run.renderMsPer100k, 1)} ms`,
      '≤ 120 ms',
      verdict(run.renderMsPer100k <= 120),
    ],
    [
      'gzip scrape throughput vs bare node:http',
      run.gzipRatio === undefined ? 'n/a' : fmt(run.gzipRatio, 2),
      '≥ 0.90',
      verdict(run.gzipRatio === undefined ? undefined : run.gzipRatio >= 0.9),
    ],
  ];
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/** "15m 101 s, 1h 232 s, 24h 350 s", or "n/a" for a run recorded before it was measured. */
function firstComplete(p: PlantResult): string {
  const entries = Object.entries(p.stationSummariesComplete ?? {});
  return entries.length === 0 ? 'n/a' : entries.map(([w, s]) => `${w} ${fmt(s)} s`).join(', ');
}

/** The section, Markdown. */
export function renderPlantSection(runs: readonly PlantRun[]): string {
  const series = referenceSeries();
  const lines = ['', '## Plant scale', ''];
  lines.push(
    'Simulator at 1,000 and 5,000 stations (10 stations per line, 20 measurement names, 30 units per line per hour), ' +
      'windows 15m/1h/24h, `max_requests_per_second: 10`, summary every 60 s at levels station, line and site ' +
      '(with the group level as well, 15m station summaries do not fit 10 requests/s at 1,000 stations: the plan drops them), ' +
      'simulated clock. Each plant runs until its first snapshot is complete (the first polls send the shortest window first, ' +
      'the longer windows in the next polls), 30 simulated minutes to settle (two refreshes of the longest ' +
      'refresh, 15m), then 45 measured minutes (three refreshes). Measurements are off in this run (a day of records of 20 ' +
      'names would not fit the machine next to the rest); their series are in the estimate and in the main table above. ' +
      'At 5,000 stations the units collector is off too (a day of unit records of 5,000 stations), so idle skipping is off there.',
    '',
  );
  runs.forEach((run, i) => {
    lines.push(`### Run ${i + 1} of ${runs.length} (${run.date})`, '');
    lines.push(...table(['Target', 'Measured', 'Target', ''], targets(run, series)), '');
  });
  const last = runs.at(-1);
  for (const p of last?.plants ?? []) {
    lines.push(`### Latest run, ${fmt(p.stations)} stations`, '');
    lines.push(
      `${fmt(p.measuredMinutes)} measured minutes; ${fmt(p.simulatedMinutes, 1)} simulated minutes in ${p.polls} polls (${fmt(p.wallSeconds, 0)} s wall); first poll ` +
        `${fmt(p.longestPollSeconds, 0)} s at the ceiling, later polls at most ${fmt(p.longestSteadyPollSeconds, 1)} s. ` +
        `Station summaries complete after start: ${firstComplete(p)}. ` +
        `Steady requests: ${fmt(p.requestsPerMinute, 1)} per minute; worst 10 s: ${p.worst10s}. ` +
        `Idle skipping: ${p.units ? `${fmt(p.idle.skipped)} requests saved, ${fmt(p.idle.verified)} re-asked, ${fmt(p.idle.disagreements)} disagreed` : 'off (units collector off)'}. ` +
        `Series exported: ${Object.entries(p.series)
          .map(([c, n]) => `${c} ${fmt(n)}`)
          .join(', ')}.`,
      '',
      ...(p.render && p.rssMiB !== undefined
        ? [
            `Exporter at this size: the longest render of one steady poll's families took ${fmt(p.render.ms, 1)} ms ` +
              `for ${fmt(p.render.series)} series, both formats (${fmt((p.render.ms * 100_000) / Math.max(1, p.render.series), 1)} ms per 100k); ` +
              `highest RSS after a poll ${fmt(p.rssMiB)} MiB (the bench process: exporter and harness, no memory limit; the simulator runs apart).`,
            '',
          ]
        : []),
    );
    lines.push(
      ...table(
        ['window', 'level', 'planned refresh', 'achieved (worst gap between two answers)'],
        p.refresh.map((r) => [
          r.window,
          r.level,
          `${fmt(r.planned)} s`,
          Number.isNaN(r.achieved) ? '-' : `${fmt(r.achieved, 1)} s`,
        ]),
      ),
      '',
      '```',
      p.plan,
      '```',
      '',
    );
  }
  return lines.join('\n');
}
