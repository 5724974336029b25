/**
 * The status page (`/status`): plain HTML with no script; every string from the upstream or the
 * config is escaped (names are someone else's data); lines collapse, for plants of thousands.
 */
import type { FlaggedChart, SummaryWindowProgress } from '../collectors/collector.ts';
import type { CollectorStatus } from '../scheduler/status.ts';
import { escapeHtml } from './html.ts';

/** A station of the tree. */
interface StatusStation {
  readonly id: string;
  readonly name: string;
  /** Latest unit record seen (epoch ms); undefined when none. */
  readonly lastUnitTime?: number;
  /** The upstream refused this station's data (403). */
  readonly refused: boolean;
}

/** One step of a line: a single station, or a group of parallel stations shown as one. */
export interface StatusStep {
  readonly position: number;
  readonly name: string;
  readonly group: boolean;
  readonly stations: readonly StatusStation[];
}

export interface StatusLine {
  readonly id: string;
  readonly name: string;
  readonly steps: readonly StatusStep[];
}

export interface StatusSite {
  readonly id: string;
  readonly name: string;
  readonly lines: readonly StatusLine[];
}

/** A station named in the config that the exporter cannot read. */
interface StatusRefused {
  readonly id: string;
  readonly why: string;
}

/** Upstream errors of one kind. */
interface StatusErrorKind {
  readonly endpoint: string;
  readonly reason: string;
  readonly status?: number;
  readonly count: number;
  readonly lastAt: number;
  readonly lastMessage: string;
}

/** One collector's plan and what it achieved. */
type StatusCollector = CollectorStatus & {
  /** The planner's shortest and longest refresh; absent outside the request plan (discovery). */
  readonly plannedRefresh?: { readonly minMs: number; readonly maxMs: number };
};

/** Everything the page shows. */
export interface StatusModel {
  readonly now: number;
  readonly version: string;
  readonly upstream: string;
  readonly ready: boolean;
  /** Undefined before the first discovery. */
  readonly sites?: readonly StatusSite[];
  readonly refused: readonly StatusRefused[];
  readonly errors: readonly StatusErrorKind[];
  readonly recentErrors: readonly { at: number; endpoint: string; reason: string; message: string }[];
  readonly collectors: readonly StatusCollector[];
  /** Control charts whose baseline breaks an assumption of the documented false-alarm rates. */
  readonly flaggedCharts?: readonly FlaggedChart[];
  /** Each summary window's progress towards a first complete answer, shortest first; empty before the first summary poll. */
  readonly windows?: readonly SummaryWindowProgress[];
}

/** "windows complete: 15m; pending: 1h (station complete), 24h", or empty before a summary poll. */
export function windowProgressText(windows: readonly SummaryWindowProgress[]): string {
  if (windows.length === 0) return '';
  const complete = windows.filter((w) => w.complete).map((w) => w.window);
  const pending = windows
    .filter((w) => !w.complete)
    .map((w) =>
      w.levelsComplete.length > 0 ? `${w.window} (${w.levelsComplete.join(', ')} complete)` : w.window,
    );
  const done = `windows complete: ${complete.length > 0 ? complete.join(', ') : 'none'}`;
  return pending.length > 0 ? `${done}; pending: ${pending.join(', ')}` : done;
}

/** Rows of the flagged charts' table at most; the rest is counted. */
const MAX_FLAGGED_ROWS = 200;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** "42 s", "3.5 min", "2.1 h", "4.0 d". */
export function formatAge(ms: number): string {
  const s = ms / 1000;
  if (s < 0) return 'in the future';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

function when(ms: number | undefined, now: number): string {
  return ms === undefined ? '<span class="none">never</span>' : `${iso(ms)} (${formatAge(now - ms)} ago)`;
}

function stationCells(st: StatusStation, now: number): string {
  const mark = st.refused ? ' <strong class="tag">refused (403)</strong>' : '';
  const age = st.lastUnitTime === undefined ? '' : formatAge(now - st.lastUnitTime);
  const last = st.lastUnitTime === undefined ? '<span class="none">none</span>' : iso(st.lastUnitTime);
  return `<td>${escapeHtml(st.name)}${mark}</td><td><code>${escapeHtml(st.id)}</code></td><td>${last}</td><td>${age}</td>`;
}

/** One row per station; a group's step cell spans its stations, so the group reads as one step. */
function stepRows(step: StatusStep, now: number): string[] {
  const span = step.stations.length > 1 ? ` rowspan="${step.stations.length}"` : '';
  const label = step.group
    ? `${escapeHtml(step.name)} <small>(group of ${step.stations.length})</small>`
    : '';
  return step.stations.map((st, i) => {
    const cls = st.refused ? ' class="refused"' : st.lastUnitTime === undefined ? ' class="silent"' : '';
    const head = i === 0 ? `<td${span}>${step.position}</td><td${span}>${label}</td>` : '';
    return `<tr${cls} data-station-id="${escapeHtml(st.id)}">${head}${stationCells(st, now)}</tr>`;
  });
}

function lineBlock(line: StatusLine, now: number): string {
  const stations = line.steps.flatMap((s) => s.stations);
  const refused = stations.filter((s) => s.refused).length;
  const newest = Math.max(...stations.map((s) => s.lastUnitTime ?? Number.NEGATIVE_INFINITY));
  const summary = [
    `${line.steps.length} steps, ${stations.length} stations`,
    Number.isFinite(newest) ? `newest unit ${formatAge(now - newest)} ago` : 'no units',
    refused > 0 ? `${refused} refused` : '',
  ].filter(Boolean);
  const rows = line.steps.flatMap((step) => stepRows(step, now));
  return `<details class="line${refused > 0 ? ' has-refused' : ''}"><summary>${escapeHtml(line.name)} <small>${escapeHtml(summary.join(' · '))}</small></summary>
<table><thead><tr><th>Step</th><th>Group</th><th>Station</th><th>Id</th><th>Last unit</th><th title="Time since the station's newest unit record (GET /units), by this exporter's clock">Data age</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></details>`;
}

function topologySection(m: StatusModel): string {
  if (!m.sites) return '<p class="none">No topology yet: waiting for the first discovery.</p>';
  if (m.sites.length === 0) return '<p class="none">No sites visible to the token (or all filtered out).</p>';
  return m.sites
    .map(
      (site) =>
        `<section class="site"><h3>${escapeHtml(site.name)} <small><code>${escapeHtml(site.id)}</code></small></h3>\n${site.lines.map((l) => lineBlock(l, m.now)).join('\n')}</section>`,
    )
    .join('\n');
}

function refusedSection(m: StatusModel): string {
  if (m.refused.length === 0) return '<p class="none">None.</p>';
  const items = m.refused.map(
    (r) =>
      `<li class="refused" data-station-id="${escapeHtml(r.id)}"><code>${escapeHtml(r.id)}</code>: ${escapeHtml(r.why)}</li>`,
  );
  return `<ul>${items.join('')}</ul>`;
}

function flaggedSection(m: StatusModel): string {
  const charts = m.flaggedCharts ?? [];
  if (charts.length === 0)
    return '<p class="none">None: every charted baseline fits the documented rates.</p>';
  const rows = charts.slice(0, MAX_FLAGGED_ROWS).map((c) => {
    const why: string[] = [];
    if (c.autocorrelation)
      why.push(
        `autocorrelated: lag-1 φ = ${c.autocorrelation.phi.toFixed(2)}${c.autocorrelation.compensated ? ' (compensated: sigma, h and L widened)' : ' (not compensated)'}`,
      );
    if (c.quantized)
      why.push(
        `quantized: steps of ${c.quantized.resolution.toPrecision(3)} against a sigma of ${c.quantized.sigma.toPrecision(3)}`,
      );
    return `<tr class="flagged" data-station-id="${escapeHtml(c.stationId)}"><td>${escapeHtml(c.site)}</td><td>${escapeHtml(c.line)}</td><td>${escapeHtml(c.station)}</td><td>${escapeHtml(c.metric)}</td><td>${escapeHtml(c.slot ?? '')}</td><td>${escapeHtml(why.join('; '))}</td></tr>`;
  });
  const more = charts.length > MAX_FLAGGED_ROWS ? `<p>and ${charts.length - MAX_FLAGGED_ROWS} more.</p>` : '';
  return `<p><small>Their chance-signal rates differ from the documented ones (docs/measurements.md, "Guards for real data"); <code>station_measurement_control_baseline_flag</code> has the same.</small></p>
<table><tr><th>Site</th><th>Line</th><th>Station</th><th>Measurement</th><th>Slot</th><th>Why</th></tr>${rows.join('')}</table>${more}`;
}

function errorsSection(m: StatusModel): string {
  if (m.errors.length === 0) return '<p class="none">No upstream errors since start.</p>';
  const rows = m.errors.map(
    (e) =>
      `<tr><td>${escapeHtml(e.endpoint)}</td><td>${escapeHtml(e.reason)}</td><td>${e.status ?? ''}</td><td>${e.count}</td><td>${when(e.lastAt, m.now)}</td><td>${escapeHtml(e.lastMessage)}</td></tr>`,
  );
  const recent = m.recentErrors.map(
    (e) =>
      `<li>${iso(e.at)} ${escapeHtml(e.endpoint)} ${escapeHtml(e.reason)}: ${escapeHtml(e.message)}</li>`,
  );
  return `<table><thead><tr><th>Endpoint</th><th>Reason</th><th>Status</th><th>Count</th><th>Last</th><th>Last message</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<details><summary>Last ${recent.length} errors, newest first</summary><ol>${recent.join('')}</ol></details>`;
}

/** A duration to read at a glance: "12 ms", "3.4 s", "42 s", "15 min", "2.0 h". */
export function formatDurationMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Number((ms / 60_000).toFixed(1))} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function plannedCell(c: StatusCollector): string {
  const r = c.plannedRefresh;
  // Discovery and targets make no planned requests (or none yet): they run on their interval.
  if (r === undefined) return '<span class="none" title="not in the request plan">each poll</span>';
  return r.minMs === r.maxMs
    ? formatDurationMs(r.minMs)
    : `${formatDurationMs(r.minMs)} – ${formatDurationMs(r.maxMs)}`;
}

function collectorsSection(m: StatusModel): string {
  const rows = m.collectors.map((c) => {
    const state = c.polls === 0 ? 'pending' : c.lastOk ? 'ok' : 'failing';
    // Polls never overlap: a poll longer than its interval delays the next one.
    const achieved = c.lastDurationMs === undefined ? undefined : Math.max(c.intervalMs, c.lastDurationMs);
    const cells = [
      escapeHtml(c.name),
      `<span class="${state}">${state}</span>`,
      formatDurationMs(c.intervalMs),
      plannedCell(c),
      formatDurationMs(achieved),
      formatDurationMs(c.lastDurationMs),
      when(c.lastSuccessMs, m.now),
      String(c.polls),
      escapeHtml(c.lastError ?? ''),
    ];
    return `<tr>${cells.map((x) => `<td>${x}</td>`).join('')}</tr>`;
  });
  return `<table><thead><tr><th>Collector</th><th>State</th><th title="How often the collector polls (its interval in the config)">Polls every</th><th title="How often each window's data is fetched anew, as the request plan spreads the requests over polls to stay within max_requests_per_second; one poll fetches only the part that is due">Data refreshed every (planned)</th><th title="The interval, or the last poll's duration when longer: polls never overlap">Polls every (achieved)</th><th>Last duration</th><th>Last success</th><th>Polls</th><th>Last error</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:1.5em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.3em 0 1em}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
summary{cursor:pointer;padding:.2em 0}summary small,h3 small{color:#666;font-weight:normal}
.refused{background:#fde8e8}.tag{color:#b00;font-size:.85em}.silent{color:#888}
.none{color:#888}.ok{color:#080}.failing{color:#b00}.pending{color:#888}.site{margin-left:.5em}`;

/** The summary windows' progress, once the summary collector has polled. */
function windowsLine(m: StatusModel): string {
  const text = windowProgressText(m.windows ?? []);
  return text === '' ? '' : `<p id="windows">Summaries: ${escapeHtml(text)}.</p>\n`;
}

/** Renders the status page. */
export function statusPage(m: StatusModel): string {
  const stations =
    m.sites?.reduce(
      (n, s) => n + s.lines.reduce((k, l) => k + l.steps.reduce((j, st) => j + st.stations.length, 0), 0),
      0,
    ) ?? 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>station-exporter status</title><link rel="icon" href="data:,">
<style>${STYLE}</style></head>
<body><h1>station-exporter status</h1>
<p>Version ${escapeHtml(m.version)}. Upstream <code>${escapeHtml(m.upstream)}</code>. ${m.ready ? 'Ready.' : 'Not ready yet.'} As of ${iso(m.now)}. <a href="./">Home</a> · <a href="metrics">Metrics</a></p>
${windowsLine(m)}<h2>Collectors</h2>
${collectorsSection(m)}
<h2 id="refused">Stations refused or missing</h2>
${refusedSection(m)}
<h2 id="flagged">Control charts flagged <small>(${m.flaggedCharts?.length ?? 0})</small></h2>
${flaggedSection(m)}
<h2 id="errors">Last upstream errors</h2>
${errorsSection(m)}
<h2 id="topology">Topology <small>(${stations} stations)</small></h2>
<p><small>Data age: how long ago the station's newest unit record was made (its <code>time_created</code> in <code>GET /units</code>), by this exporter's clock. A long age means the station has built nothing since, or its records have not reached the upstream; it is not the age of the exporter's poll, which the collectors table shows.</small></p>
${topologySection(m)}
</body></html>
`;
}
