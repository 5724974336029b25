/**
 * Dashboards query only what is exported: every metric name in every panel, variable and
 * annotation query must be a series that config.example.yaml (and the demo's built-in config)
 * exports against the simulator, a recording rule of the shipped rules, or Prometheus's own
 * (`up`, `ALERTS`). A panel that reads an opt-in family must say so in its description.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { demoConfig } from '../../src/app/commands/demo.ts';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { startSimulatorServer } from '../../src/simulator/index.ts';
import { parseSimulatorArgs } from '../../src/simulator/main.ts';
import { FIXED_NOW } from '../helpers/harness.ts';
import { decodeDelimited } from '../helpers/protobuf.ts';
import { generatedDashboards, type PanelJson, queryPanels } from './inspect.ts';

const examplePath = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

/** Series Prometheus itself makes. */
const PROMETHEUS_OWN = new Set(['up', 'ALERTS', 'ALERTS_FOR_STATE', 'scrape_duration_seconds']);

/** Metric names a PromQL expression reads: not label names, functions, keywords or variables. */
function metricNames(expr: string): string[] {
  const stripped = expr
    // Label matchers and grouping clauses hold label names, not metrics.
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // Strings (label_values's label, label_replace's arguments) and Grafana variables.
    .replace(/"[^"]*"/g, '""')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(?!\s*\()/g)) {
    const word = m[1]!;
    if (/^(and|or|unless|bool|offset|by|without|on|ignoring|group_left|group_right|inf|nan|e)$/i.test(word))
      continue;
    // The label argument of label_values(metric, label).
    if (/^label_values\(/.test(expr.trim()) && !/[:_]/.test(word) && word !== 'up') continue;
    names.push(word);
  }
  return names.filter(
    (n) =>
      n.startsWith('station_') || n.includes(':') || PROMETHEUS_OWN.has(n) || /^(process|nodejs)_/.test(n),
  );
}

function recordingRules(): Set<string> {
  const doc = parseYaml(readFileSync('prometheus/rules/station-exporter.rules.yml', 'utf8')) as {
    groups: Array<{ rules: Array<{ record?: string }> }>;
  };
  return new Set(doc.groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
}

/** Every sample name one complete poll of `config` exports, self-metrics included. */
async function exportedNames(config: (url: string) => Config): Promise<Set<string>> {
  const opts = parseSimulatorArgs(['--port', '0']);
  if (opts === 'help') throw new Error('unexpected help');
  const sim = await startSimulatorServer({ ...opts, now: () => FIXED_NOW });
  const exporter = wireExporter(config(sim.url), {
    wallClock: () => FIXED_NOW,
    logger: pino({ level: 'silent' }),
    processMetrics: true,
  });
  const protobufAccept = {
    accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited',
  };
  try {
    // The exporter renders protobuf only once a scraper has asked for it (the first answer is text).
    await exporter.app.request('/metrics', { headers: protobufAccept });
    await exporter.scheduler.pollOnce();
    const text = await (await exporter.app.request('/metrics')).text();
    // Sampled series, and the families declared with no sample yet: a counter of skipped
    // records, the token's expiry (only for a JWT) exist as soon as there is something to count.
    const sampled = text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => /^[^{ ]+/.exec(l)![0]);
    const declared = [...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap((m) =>
      m[2] === 'counter' && !m[1]!.endsWith('_total') ? [m[1]!, `${m[1]}_total`] : [m[1]!],
    );
    // The native histogram is in the protobuf format only.
    const protobuf = await exporter.app.request('/metrics', { headers: protobufAccept });
    const native = decodeDelimited(new Uint8Array(await protobuf.arrayBuffer())).map((f) => f.name);
    return new Set([...sampled, ...declared, ...native]);
  } finally {
    await exporter.close();
    await sim.close();
  }
}

function exampleConfig(url: string): Config {
  const raw = parseYaml(readFileSync(examplePath, 'utf8')) as {
    upstream: Record<string, unknown>;
    sharding: Record<string, unknown>;
  };
  raw.upstream.base_url = url;
  raw.upstream.max_requests_per_second = 10_000;
  raw.sharding.max_requests_per_second = 10_000;
  return configFromObject(raw, { env: { STATION_TOKEN: 'demo-token' }, baseDir: '.' });
}

/** Every query of every dashboard, with the panel it belongs to (undefined for variables). */
function queries(): Array<{ where: string; expr: string; panel?: PanelJson }> {
  const out: Array<{ where: string; expr: string; panel?: PanelJson }> = [];
  for (const { dashboard: d } of generatedDashboards()) {
    for (const p of queryPanels(d))
      for (const t of p.targets) out.push({ where: `${d.title} / ${p.title}`, expr: t.expr, panel: p });
    for (const v of d.templating.list)
      if (v.query) out.push({ where: `${d.title} / $${v.name}`, expr: v.query });
    for (const a of d.annotations.list ?? [])
      if (a.expr) out.push({ where: `${d.title} / ${a.name}`, expr: a.expr });
  }
  return out;
}

describe('metricNames', () => {
  it('finds metrics, not labels, functions or variables', () => {
    expect(
      metricNames(
        'sum by (station_id) (rate(station_x_total{station_id="$s", window="$window"}[$__rate_interval])) / on (site) group_left (line) station_y * 100 > bool 1e3',
      ),
    ).toEqual(['station_x_total', 'station_y']);
    expect(metricNames('label_values(station_info{site=~"$site"}, line)')).toEqual(['station_info']);
    expect(metricNames('site_line:station_line_output_units:per_hour and up == 0')).toEqual([
      'site_line:station_line_output_units:per_hour',
      'up',
    ]);
  });
});

describe.each([
  ['config.example.yaml', exampleConfig],
  ['the demo config', demoConfig],
])('dashboards against %s', (_name, config) => {
  it('query only what it exports, recording rules, or opt-in families their panel names', async () => {
    const exported = await exportedNames(config);
    const rules = recordingRules();
    const missing: string[] = [];
    for (const q of queries()) {
      for (const name of metricNames(q.expr)) {
        if (exported.has(name) || rules.has(name) || PROMETHEUS_OWN.has(name)) continue;
        // An opt-in family is allowed where the panel says it is opt-in and names it.
        const description = q.panel?.description ?? '';
        if (/opt-in/i.test(description) && description.includes(name)) continue;
        missing.push(`${q.where}: ${name}`);
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  }, 30_000);
});

describe('the demo config', () => {
  it('has every window the shipped rules alert on, and control charts for the control panels', () => {
    const rules = readFileSync('prometheus/rules/station-exporter.rules.yml', 'utf8');
    const windows = new Set([...rules.matchAll(/window="([^"]+)"/g)].map((m) => m[1]!));
    expect([...windows].sort()).toEqual(['1h', '24h']);
    const config = demoConfig('http://127.0.0.1:1');
    const demo = new Set(config.windows.map((w) => w.name));
    for (const w of windows) expect(demo.has(w), w).toBe(true);
    expect(config.measurements.control.names.length).toBeGreaterThan(0);
  });
});
