/**
 * prometheus/alertmanager.example.yml: amtool accepts it, every alert of the shipped rules reaches
 * the receiver meant for it (capability to a ticket queue, never the pager), and the inhibition
 * covers exactly the station alerts. The alert names come from the rules file, so a renamed or
 * added alert shows up here. The inhibit rules are also run: a real Alertmanager with this
 * config gets alerts through `amtool alert add` and `amtool alert query` says which are muted.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { alertmanagerPath } from '../helpers/alertmanager-server.ts';
import { freePort } from '../helpers/prometheus.ts';

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

/** The capability alerts: a quality ticket, not a page. */
const TICKETS = ['StationMeasurementCapabilityLost'];
const production = alertsOf('station-exporter.production').filter((a) => !TICKETS.includes(a));
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
    for (const a of TICKETS) expect(route(a).stdout.trim(), a).toBe('quality-tickets');
    expect(alertsOf('station-exporter.production')).toEqual(expect.arrayContaining(TICKETS));
  });
});

interface Route {
  readonly matchers?: string[];
  readonly receiver: string;
  readonly group_by?: string[];
  readonly group_interval?: string;
  readonly repeat_interval?: string;
}

describe('alertmanager.example.yml', () => {
  const doc = parse(readFileSync(CONFIG, 'utf8')) as {
    route: Route & { group_by: string[]; routes: Route[] };
    inhibit_rules: InhibitRule[];
    receivers: Array<{ name: string; webhook_configs?: Array<{ send_resolved?: boolean }> }>;
  };

  it('groups by alertname, site and line', () => {
    expect(doc.route.group_by).toEqual(['alertname', 'site', 'line']);
  });

  it('sends capability to its own receiver per line, recalled after days, not hours', () => {
    const route = doc.route.routes.find((r) => r.receiver === 'quality-tickets');
    expect(route?.group_by).toEqual(['alertname', 'site', 'line']);
    // Durations in days: a ticket queue or a daily digest, not a pager's 4h.
    expect(route?.repeat_interval).toMatch(/^[1-4]d$/);
    expect(route?.group_interval).toMatch(/^\d+d$/);
    const receiver = doc.receivers.find((r) => r.name === 'quality-tickets');
    expect(receiver?.webhook_configs?.[0]?.send_resolved).toBe(false);
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

/** A real Alertmanager with the example config; its webhooks go nowhere (only the marks matter). */
class ExampleAlertmanager {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'am-example-'));
  url = '';

  async start(): Promise<void> {
    const bin = alertmanagerPath();
    if (!bin) throw new Error('alertmanager not found (Debian prometheus-alertmanager)');
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(
      bin,
      [
        `--config.file=${path.resolve(CONFIG)}`,
        `--storage.path=${path.join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`${this.url}/-/ready`)).ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline || this.child.exitCode !== null)
        throw new Error('alertmanager did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const amEnabled = (Boolean(bin) && Boolean(alertmanagerPath())) || Boolean(process.env.CI);

describe.skipIf(!amEnabled)('the inhibit rules of alertmanager.example.yml, run by Alertmanager', () => {
  const am = new ExampleAlertmanager();
  const J = ['job=station-exporter', 'instance=a:9732'];
  const SERIES = [...J, 'site=S', 'line=L', 'station=ICT', 'station_id=a2', 'window=24h'];
  /** Every alert sent, by a name of the test's own; the labels are what Prometheus would send. */
  const sent: Record<string, string[]> = {
    vccWarning: ['alertname=StationMeasurementCapabilityLost', 'severity=warning', ...SERIES, 'metric=vcc'],
    vccCritical: ['alertname=StationMeasurementCapabilityLost', 'severity=critical', ...SERIES, 'metric=vcc'],
    // The same alert on another series: its warning stays.
    currentWarning: [
      'alertname=StationMeasurementCapabilityLost',
      'severity=warning',
      ...SERIES,
      'metric=idle',
    ],
    tokenWarning: ['alertname=StationExporterTokenExpiringSoon', 'severity=warning', ...J],
    tokenCritical: ['alertname=StationExporterTokenExpiringSoon', 'severity=critical', ...J],
    // Exporter b is down: its station and chart alerts are muted, not those of exporter a.
    down: ['alertname=StationExporterDown', 'severity=critical', 'job=station-exporter', 'instance=b:9732'],
    capabilityOfDown: [
      'alertname=StationMeasurementCapabilityLost',
      'severity=warning',
      'job=station-exporter',
      'instance=b:9732',
      'site=S',
      'line=M',
      'metric=vcc',
    ],
    shiftOfDown: [
      'alertname=MeasurementShiftDetected',
      'severity=warning',
      'job=station-exporter',
      'instance=b:9732',
      'site=S',
      'line=M',
    ],
    yieldOfUp: ['alertname=StationLineLowFinalYield', 'severity=warning', ...J, 'site=S', 'line=L'],
  };

  beforeAll(async () => {
    await am.start();
    for (const labels of Object.values(sent)) {
      const r = amtool('alert', 'add', `--alertmanager.url=${am.url}`, ...labels);
      expect(r.status, r.output).toBe(0);
    }
  }, 30_000);
  afterAll(() => am.stop());

  it('mute exactly the alerts they name', () => {
    const r = amtool(
      'alert',
      'query',
      '--inhibited',
      '--silenced',
      '--active',
      '-o',
      'json',
      `--alertmanager.url=${am.url}`,
    );
    expect(r.status, r.output).toBe(0);
    const alerts = JSON.parse(r.stdout) as Array<{
      labels: Record<string, string>;
      status: { inhibitedBy: string[] | null };
    }>;
    const key = (labels: Record<string, string>) =>
      Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join(',');
    const muted = new Set(
      alerts.filter((a) => (a.status.inhibitedBy ?? []).length > 0).map((a) => key(a.labels)),
    );
    const expected = ['vccWarning', 'tokenWarning', 'capabilityOfDown', 'shiftOfDown'];
    expect(alerts).toHaveLength(Object.keys(sent).length);
    for (const [name, labels] of Object.entries(sent)) {
      const asObject = Object.fromEntries(labels.map((l) => l.split('=') as [string, string]));
      expect(muted.has(key(asObject)), name).toBe(expected.includes(name));
    }
  });
});
