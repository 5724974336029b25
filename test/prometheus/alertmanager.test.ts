/**
 * prometheus/alertmanager.example.yml: amtool accepts it, every alert of the shipped rules reaches
 * the receiver meant for it, and the inhibition covers exactly the station alerts. The alert names
 * come from the rules file, so a renamed or added alert shows up here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const CONFIG = 'prometheus/alertmanager.example.yml';
const RULES = 'prometheus/rules/station-exporter.rules.yml';
const NELSON = 'prometheus/rules/station-exporter.nelson.rules.yml';

function amtoolPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', process.env.AMTOOL ?? 'amtool'], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const bin = amtoolPath();
// Under CI a missing amtool fails the tests instead of skipping them.
const enabled = Boolean(bin) || Boolean(process.env.CI);

function amtool(...args: string[]) {
  if (!bin) throw new Error('amtool not found (Debian prometheus-alertmanager; or set AMTOOL)');
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout ?? '', output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

interface Group {
  readonly name: string;
  readonly rules: { alert?: string; expr?: string; labels?: Record<string, string> }[];
}

/** The alerting rules of one rule group of a rules file. */
function rulesOf(group: string, file = RULES) {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: Group[] };
  return (doc.groups.find((g) => g.name === group)?.rules ?? []).filter((r) => r.alert !== undefined);
}

/** Alert names of one rule group of the shipped rules. */
function alertsOf(group: string, file = RULES): string[] {
  return [...new Set(rulesOf(group, file).map((r) => r.alert ?? ''))];
}

const production = alertsOf('station-exporter.production');
const exporter = alertsOf('station-exporter.exporter');
/** The per-chart measurement alerts: the shipped CUSUM one and the opt-in Nelson ones. */
const chartRules = [
  ...rulesOf('station-exporter.control').filter((r) => r.alert?.startsWith('Measurement')),
  ...rulesOf('station-exporter.control-nelson', NELSON),
];

interface InhibitRule {
  readonly source_matchers: string[];
  readonly target_matchers: string[];
  readonly equal: string[];
}

/** Whether an `alertname =~ "..."` matcher matches a name; Alertmanager anchors the expression. */
function matchesName(matchers: string[], name: string): boolean {
  const m = matchers.map((x) => /^alertname\s*=~\s*"(.*)"$/.exec(x)).find(Boolean);
  if (!m) throw new Error(`no alertname matcher in ${matchers.join(', ')}`);
  return new RegExp(`^(?:${m[1]})$`).test(name);
}

describe.skipIf(!enabled)('alertmanager.example.yml with amtool', () => {
  it('passes amtool check-config', () => {
    const r = amtool('check-config', CONFIG);
    expect(r.output).toContain('SUCCESS');
    expect(r.status, r.output).toBe(0);
  });

  it('routes station alerts to production and exporter alerts to the exporter operators', () => {
    expect(production.length).toBeGreaterThan(0);
    expect(exporter.length).toBeGreaterThan(0);
    const route = (alert: string) =>
      amtool('config', 'routes', 'test', `--config.file=${CONFIG}`, `alertname=${alert}`, 'site=S', 'line=L');
    for (const a of production) expect(route(a).stdout.trim(), a).toBe('production');
    for (const r of chartRules) expect(route(r.alert ?? '').stdout.trim(), r.alert).toBe('production');
    for (const a of exporter) expect(route(a).stdout.trim(), a).toBe('exporter-operators');
  });
});

describe('alertmanager.example.yml', () => {
  const doc = parse(readFileSync(CONFIG, 'utf8')) as {
    route: { group_by: string[] };
    inhibit_rules: InhibitRule[];
  };

  it('groups by alertname, site and line', () => {
    expect(doc.route.group_by).toEqual(['alertname', 'site', 'line']);
  });

  it('mutes every station alert, and nothing else, while its exporter is down', () => {
    const rule = doc.inhibit_rules.find((r) => matchesName(r.source_matchers, 'StationExporterDown'));
    expect(rule).toBeDefined();
    for (const a of production) expect(matchesName(rule!.target_matchers, a), a).toBe(true);
    for (const a of exporter) expect(matchesName(rule!.target_matchers, a), a).toBe(false);
    // Only the station alerts of the exporter that is down, not those of its neighbours.
    expect(rule!.equal).toEqual(['job', 'instance']);
    // Every source names a real alert of the rules file (a typo would never match anything).
    const sources = /"(.*)"/.exec(rule!.source_matchers.join(''))![1]!.split('|');
    for (const a of sources) expect(exporter).toContain(a);
  });

  it('mutes the measurement chart alerts of an exporter that is down or stale', () => {
    expect(chartRules.map((r) => r.alert)).toEqual([
      'MeasurementShiftDetected',
      'MeasurementOutOfControl',
      'MeasurementProcessShift',
    ]);
    const rule = doc.inhibit_rules.find((r) => matchesName(r.target_matchers, 'MeasurementShiftDetected'));
    expect(rule).toBeDefined();
    for (const source of ['StationExporterDown', 'StationExporterUpstreamDown', 'StationExporterStaleData'])
      expect(matchesName(rule!.source_matchers, source), source).toBe(true);
    for (const r of chartRules) {
      expect(matchesName(rule!.target_matchers, r.alert ?? ''), r.alert).toBe(true);
      // The inhibition compares job and instance: the alert must keep them.
      expect(r.expr, r.alert).toMatch(/^count by \(job, instance, site, line\)/);
    }
    expect(rule!.equal).toEqual(['job', 'instance']);
  });
});
