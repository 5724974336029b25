/**
 * The Prometheus rules and the example configuration, checked by promtool: syntax, the unit
 * tests under prometheus/tests (each alert fires in one case and stays quiet in others), and the
 * shape every alert must have (for, severity, summary, description, a runbook anchor that exists).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkPrometheus3Config, promtoolPath } from '../helpers/promtool.ts';

const RULES = 'prometheus/rules/station-exporter.rules.yml';
/** The opt-in Nelson-rule alerts: held to the same conventions and tested alike. */
const OPT_IN = 'prometheus/rules/station-exporter.nelson.rules.yml';
/** Where the shipped rules' runbook links point (scripts/runbook-base.mjs changes it). */
const RUNBOOK_BASE = 'https://github.com/station-exporter/station-exporter/blob/main/docs/runbook.md';
const TESTS_DIR = 'prometheus/tests';
const bin = promtoolPath();
const enabled = Boolean(bin) || Boolean(process.env.CI);

interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

function promtool(...args: string[]) {
  if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function rules(file = RULES): Rule[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Rule[] }> };
  return doc.groups.flatMap((g) => g.rules);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return out;
}

describe.skipIf(!enabled)('prometheus rules with promtool', () => {
  it('pass promtool check rules', () => {
    const r = promtool('check', 'rules', RULES, OPT_IN);
    expect(r.output).toContain('SUCCESS');
    expect(r.status, r.output).toBe(0);
  });

  it('pass every promtool unit test', () => {
    const files = readdirSync(TESTS_DIR)
      .filter((f) => f.endsWith('.yml'))
      .map((f) => path.join(TESTS_DIR, f));
    expect(files.length).toBeGreaterThan(0);
    const r = promtool('test', 'rules', ...files);
    expect(r.status, r.output).toBe(0);
    // promtool evaluates every test group in turn: about 20 s of CPU alone (the capability
    // tests evaluate ten days of rules), more on a loaded machine.
  }, 180_000);

  it('accept the example prometheus.yml with its rule file', () => {
    const r = promtool('check', 'config', 'prometheus/prometheus.example.yml');
    expect(r.output).toContain('1 rule files found');
    expect(r.status, r.output).toBe(0);
  });

  it('accept the Prometheus 3 example: the same but native histograms per scrape, protobuf first', () => {
    const { result, jobs } = checkPrometheus3Config('prometheus/prometheus3.example.yml');
    expect(result.output).toContain('1 rule files found');
    expect(result.ok, result.output).toBe(true);
    expect(jobs[0]).toEqual({
      scrape_native_histograms: true,
      scrape_protocols: [
        'PrometheusProto',
        'OpenMetricsText1.0.0',
        'OpenMetricsText0.0.1',
        'PrometheusText0.0.4',
      ],
    });
    // Apart from those settings and its comments, the 3.x file is the 2.x one.
    const strip = (file: string) => {
      const doc = parse(readFileSync(file, 'utf8')) as { scrape_configs: Array<Record<string, unknown>> };
      for (const job of doc.scrape_configs) {
        delete job.scrape_native_histograms;
        delete job.scrape_protocols;
      }
      return doc;
    };
    expect(strip('prometheus/prometheus3.example.yml')).toEqual(strip('prometheus/prometheus.example.yml'));
  });
});

describe('alert conventions', () => {
  const alerts = [...rules(), ...rules(OPT_IN)].filter((r) => r.alert);
  const runbook = anchors(readFileSync('docs/runbook.md', 'utf8'));

  it.each(alerts.map((a) => [`${a.alert} (${a.labels?.severity})`, a] as const))(
    '%s has for, severity, summary, description and a runbook anchor that exists',
    (_name, a) => {
      expect(a.for).toMatch(/^\d+[smh]$/);
      // ticket: a claim for the quality plan (below target), routed to a ticket queue, never paged.
      expect(['info', 'ticket', 'warning', 'critical']).toContain(a.labels?.severity);
      expect(a.annotations?.summary).toBeTruthy();
      expect(a.annotations?.description).toBeTruthy();
      // Absolute, so that it is a link in Alertmanager and every notification.
      const [base, anchor] = (a.annotations?.runbook_url ?? '').split('#');
      expect(base).toBe(RUNBOOK_BASE);
      expect(runbook).toContain(anchor);
    },
  );

  it('has a unit test that fires for every alert name', () => {
    const tested = new Set<string>();
    for (const f of readdirSync(TESTS_DIR).filter((n) => n.endsWith('.yml'))) {
      const doc = parse(readFileSync(path.join(TESTS_DIR, f), 'utf8')) as {
        tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      };
      for (const t of doc.tests)
        for (const a of t.alert_rule_test ?? []) if (a.exp_alerts.length > 0) tested.add(a.alertname);
    }
    expect([...tested].sort()).toEqual([...new Set(alerts.map((a) => a.alert))].sort());
  });

  it('lists every alert with its severity, expression and for in docs/dashboards.md', () => {
    const doc = readFileSync('docs/dashboards.md', 'utf8');
    for (const a of alerts) {
      const expr = a.expr.replace(/\s+/g, ' ').trim();
      expect(doc).toContain(`| \`${a.alert}\` | ${a.labels?.severity} | \`${expr}\` | ${a.for} |`);
    }
  });

  it('moves every runbook link to another base in one step, keeping the anchors', async () => {
    // @ts-expect-error: a plain .mjs script, without types.
    const { rewriteRunbookBase } = (await import('../../scripts/runbook-base.mjs')) as {
      rewriteRunbookBase: (text: string, base: string) => { text: string; count: number };
    };
    const text = readFileSync(RULES, 'utf8');
    const base = 'https://wiki.example.com/ops/station-exporter-runbook';
    const out = rewriteRunbookBase(text, base);
    const shipped = alerts.filter((a) => rules().some((r) => r.alert === a.alert));
    expect(out.count).toBe(shipped.length);
    const moved = (parse(out.text) as { groups: Array<{ rules: Rule[] }> }).groups
      .flatMap((g) => g.rules)
      .filter((r) => r.alert)
      .map((r) => r.annotations?.runbook_url);
    expect(moved).toEqual(shipped.map((a) => a.annotations?.runbook_url?.replace(RUNBOOK_BASE, base)));
  });

  it('alert on control-chart events, never on the hour-window gauge', () => {
    // The gauge keeps a chance point for the whole evaluation window; an alert on it fires for
    // an hour and, with many charts, nearly always.
    for (const r of [...rules(), ...rules(OPT_IN)])
      expect(r.expr, r.alert ?? r.record).not.toContain('station_measurement_control_window_violations');
    const control = alerts.filter((a) => a.expr.includes('station_measurement_control_violations_total'));
    expect(control.map((a) => a.alert).sort()).toEqual([
      'MeasurementOutOfControl',
      'MeasurementProcessShift',
      'MeasurementShiftDetected',
    ]);
    for (const a of control)
      expect(a.expr).toMatch(/increase\(station_measurement_control_violations_total\{[^}]*\}\[10m\]\)/);
  });

  it("order every promtool test file's groups, since promtool otherwise evaluates them at random", () => {
    for (const f of readdirSync(TESTS_DIR).filter((x) => x.endsWith('.yml'))) {
      const doc = parse(readFileSync(path.join(TESTS_DIR, f), 'utf8')) as {
        rule_files: string[];
        group_eval_order?: string[];
      };
      const groups = doc.rule_files.flatMap((r) =>
        (
          parse(readFileSync(path.join(TESTS_DIR, r), 'utf8')) as { groups: Array<{ name: string }> }
        ).groups.map((g) => g.name),
      );
      expect(doc.group_eval_order, f).toEqual(groups);
    }
  });

  it('names recording rules level:metric:operation', () => {
    for (const r of rules().filter((x) => x.record))
      expect(r.record).toMatch(/^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$/);
  });
});
