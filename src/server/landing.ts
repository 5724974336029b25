/** The landing page: links, version, and per-collector status. Plain HTML, no scripts. */
import type { CollectorStatus } from '../scheduler/status.ts';
import { escapeHtml } from './html.ts';

function ago(ms: number | undefined, now: number): string {
  return ms === undefined ? 'never' : `${((now - ms) / 1000).toFixed(1)} s ago`;
}

function row(s: CollectorStatus, now: number): string {
  const state = s.polls === 0 ? 'pending' : s.lastOk ? 'ok' : 'failing';
  const cells = [
    s.name,
    state,
    `${s.intervalMs / 1000} s`,
    String(s.polls),
    ago(s.lastSuccessMs, now),
    s.lastDurationMs === undefined ? '' : `${s.lastDurationMs.toFixed(0)} ms`,
    s.lastError ?? '',
  ];
  return `<tr class="${state}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
}

/** Renders the landing page. */
export function landingPage(p: {
  version: string;
  upstream: string;
  status: readonly CollectorStatus[];
  ready: boolean;
  now: number;
  /** Where the metrics are served. */
  metricsPath: string;
}): string {
  // Relative, as the other links: the exporter may sit behind a proxy under a path prefix.
  const metricsHref = escapeHtml(p.metricsPath.replace(/^\/+/, ''));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>station-exporter</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.ok td:nth-child(2){color:#080}
.failing td:nth-child(2){color:#b00}.pending td:nth-child(2){color:#888}</style></head>
<body><h1>station-exporter</h1>
<p>Version ${escapeHtml(p.version)}. Upstream: <code>${escapeHtml(p.upstream)}</code>. ${p.ready ? 'Ready.' : 'Not ready yet: waiting for the first complete poll.'}</p>
<ul><li><a href="${metricsHref}">Metrics</a></li><li><a href="status">Status</a> (topology, data age, refused stations, upstream errors)</li><li><a href="-/healthy">Health</a></li><li><a href="-/ready">Readiness</a></li></ul>
<h2>Collectors</h2>
<table><tr><th>Collector</th><th>State</th><th>Interval</th><th>Polls</th><th>Last success</th><th>Last duration</th><th>Last error</th></tr>
${p.status.map((s) => row(s, p.now)).join('\n')}
</table></body></html>
`;
}
