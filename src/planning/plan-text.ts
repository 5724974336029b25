/** The request plan as text for `check-config`: a row per entry, the total, and what was dropped. */
import { formatDuration } from '../config/duration.ts';
import type { PlanEntry, RequestPlan } from './request-plan.ts';

const HEADER = ['collector', 'window', 'level', 'requests', 'refresh', 'requests/min'] as const;

const perMinute = (value: number): string => value.toFixed(1);

function row(e: PlanEntry): string[] {
  const refresh =
    formatDuration(e.refreshMs) + (e.basis === 'default' || e.basis === 'interval' ? '' : ` (${e.basis})`);
  return [
    e.collector,
    e.window ?? '-',
    e.level ?? '-',
    String(e.requests),
    refresh,
    perMinute(e.requestsPerMinute),
  ];
}

function table(rows: readonly string[][]): string[] {
  const widths = HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  // Numbers are right-aligned so that their digits line up.
  const numeric = new Set([3, 5]);
  return rows.map((r) =>
    r
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Renders the plan as lines of text (no trailing newline). */
export function renderPlan(plan: RequestPlan): string {
  const percent = (plan.retryReserve * 100).toFixed(0);
  const lines = [
    `Request plan: budget ${perMinute(plan.budgetPerMinute)} requests/min, ${percent} % kept for retries, ` +
      `so at most ${perMinute(plan.plannedCeilingPerMinute)} planned.`,
    '',
    ...table([[...HEADER], ...plan.entries.map(row)]),
    '',
    `Total: ${perMinute(plan.requestsPerMinute)} requests/min of ${perMinute(plan.plannedCeilingPerMinute)} planned ` +
      `(${((100 * plan.requestsPerMinute) / plan.budgetPerMinute).toFixed(0)} % of the budget).`,
  ];
  if (plan.stretch > 0) {
    lines.push(
      `Refreshes were stretched beyond their defaults: data up to ${(plan.stretch * 100).toFixed(1)} % of a window old.`,
    );
  }
  if (plan.dropped.length === 0) return lines.join('\n');
  lines.push('', 'Does not fit even at the longest refreshes; dropped, in this order:');
  for (const d of plan.dropped) {
    const what = [d.collector, d.window, d.level].filter((p) => p !== undefined).join(' ');
    lines.push(
      `  - ${what}: ${d.requests} requests, ${perMinute(d.requestsPerMinute)} requests/min at its longest refresh`,
    );
  }
  lines.push('Raise upstream.max_requests_per_second, shard across replicas, or remove levels or windows.');
  return lines.join('\n');
}
