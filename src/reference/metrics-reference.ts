/**
 * Generates the metrics reference (a Markdown table) from the collectors' family
 * descriptions and the self-metrics registry, so the documentation cannot drift.
 */

import { COLLECTORS } from '../collectors/index.ts';
import { Registry } from '../exposition/client.ts';
import { registerProcessMetrics } from '../exposition/process-metrics.ts';
import { SelfMetrics } from '../exposition/selfmetrics.ts';
import { PlanMetrics } from '../planning/plan-metrics.ts';
import { registerConnectionMetrics } from '../server/connection-metrics.ts';
import { registerWebConfigMetrics } from '../server/web-config/metrics.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

interface Row {
  readonly collector: string;
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
}

/** The rows of the families `register` puts in a registry of their own. */
function rowsOf(collector: string, register: (registry: Registry) => void): Row[] {
  const registry = new Registry();
  register(registry);
  return registry.getMetricsAsArray().map((m: object) => {
    const metric = m as unknown as { name: string; help: string; type: string; labelNames?: string[] };
    const name =
      metric.type === 'counter' && !metric.name.endsWith('_total') ? `${metric.name}_total` : metric.name;
    return { collector, name, type: metric.type, labels: metric.labelNames ?? [], help: metric.help };
  });
}

/** The reference table, one row per family. */
export function renderMetricsReference(): string {
  const rows: Row[] = [
    ...COLLECTORS.flatMap((c) =>
      c.families.map((f) => ({
        collector: c.name,
        name: f.name,
        type: f.kind,
        labels: f.labels ?? [],
        help: f.help,
      })),
    ),
    ...rowsOf('self', (registry) => {
      new SelfMetrics(registry, { version: 'reference', commit: 'reference', nodeVersion: 'reference' });
      registerWebConfigMetrics(registry);
      registerConnectionMetrics(registry);
      new PlanMetrics(registry);
    }),
    // The standard process and Node runtime metrics (the client library's default collectors).
    ...rowsOf('process', registerProcessMetrics),
  ];
  const lines = [
    '| Metric | Type | Labels | Collector | Description |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.name}\` | ${r.type} | ${r.labels.map((l) => `\`${l}\``).join(', ')} | ${r.collector} | ${cell(r.help)} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
