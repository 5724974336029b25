/**
 * bench:pager's method against the real thing. A live Prometheus 2.42 scrapes the exporter and
 * evaluates the shipped default rules, a live Alertmanager 0.25 routes the alerts with the
 * shipped route to a webhook served here; `for`, `keep_firing_for`, the evaluation intervals and
 * the route's waits are shortened to seconds in test copies (the expressions, matchers, grouping
 * and inhibition are the shipped ones). One line's yield is driven down, then restored.
 *
 * Then the bench's way: every alert expression (recording rules inlined) evaluated as a range
 * query over the same samples at the evaluation interval, `for`/`keep_firing_for` applied by
 * alert-state.ts, and the notifications computed by dispatch.ts from the same route. The two
 * must send the same notifications (receiver, group, firing and resolved alerts), at times that
 * agree within a few evaluation intervals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { firingSpans, labelKey } from '../../../bench/pager/alert-state.ts';
import { AlertmanagerModel } from '../../../bench/pager/dispatch.ts';
import { parseAlertmanagerConfig } from '../../../bench/pager/route.ts';
import { defaultRuleFiles, loadAlerts } from '../../../bench/pager/rules.ts';
import { type Exporter, wireExporter } from '../../../src/app/wire.ts';
import { configFromObject } from '../../../src/config/load.ts';
import { type RunningSimulator, startSimulatorServer } from '../../../src/simulator/index.ts';
import { alertmanagerPath, startWebhook } from '../../helpers/alertmanager-server.ts';
import { FIXED_NOW } from '../../helpers/harness.ts';
import { freePort, prometheusPath } from '../../helpers/prometheus.ts';

const enabled = (Boolean(prometheusPath()) && Boolean(alertmanagerPath())) || Boolean(process.env.CI);
const S = 1000;
/** Every `for` and `keep_firing_for` of the test copy, and the route's waits. */
const FOR = '4s';
const KEEP = '6s';
const GROUP_WAIT_MS = 2 * S;
const GROUP_INTERVAL_MS = 5 * S;

/** The default rule files as one file, with seconds for minutes. */
function fastRules(dir: string): string {
  const groups = defaultRuleFiles(path.resolve('prometheus/prometheus.example.yml')).flatMap(
    (f) =>
      (
        parse(readFileSync(f, 'utf8')) as {
          groups: Array<{
            interval?: string;
            rules: Array<{ alert?: string; for?: string; keep_firing_for?: string; expr: string }>;
          }>;
        }
      ).groups,
  );
  for (const g of groups) {
    g.interval = '1s';
    // On the test's clock a plant minute passes each second, so between two 1 s polls data ages a
    // plant minute, over 5 polling intervals: the stale-data alert would fire for good and, by the
    // shipped inhibit rules, mute the yield alert under test. An artefact of the fast clock.
    g.rules = g.rules.filter((r) => r.alert !== 'StationExporterStaleData');
    for (const r of g.rules) {
      if (r.for && r.for !== '0m' && r.for !== '0s') r.for = FOR;
      if (r.keep_firing_for) r.keep_firing_for = KEEP;
      // A plant minute is a second of the test's clock: the CUSUM events' 15m range becomes 10s.
      r.expr = r.expr.replace(/(cusum_events_total\{[^}]*\})\[15m\]/g, '$1[10s]');
    }
  }
  const file = path.join(dir, 'rules.yml');
  writeFileSync(file, stringify({ groups }));
  return file;
}

/** The shipped route with seconds for its waits, its receivers sent to `hook`. */
function fastRoute(dir: string, hook: string): string {
  const doc = parse(readFileSync('prometheus/alertmanager.example.yml', 'utf8')) as {
    route: Record<string, unknown> & { routes?: Array<Record<string, unknown>> };
    receivers: Array<{ name: string; webhook_configs: Array<{ url: string }> }>;
  };
  Object.assign(doc.route, {
    group_wait: `${GROUP_WAIT_MS / S}s`,
    group_interval: `${GROUP_INTERVAL_MS / S}s`,
    repeat_interval: '1h',
  });
  for (const r of doc.receivers) for (const w of r.webhook_configs) w.url = `${hook}/${r.name}`;
  const file = path.join(dir, 'alertmanager.yml');
  writeFileSync(file, stringify(doc));
  return file;
}

interface Received {
  readonly at: number;
  readonly receiver: string;
  readonly firing: string[];
  readonly resolved: string[];
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function ready(url: string, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (
      await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${what} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The same alert identity in both runs: labels without the instance's port. */
const id = (labels: Record<string, string>) => labelKey({ ...labels, instance: '' });

describe.skipIf(!enabled)("bench:pager's method against a live Prometheus and Alertmanager", () => {
  let dir: string;
  let sim: RunningSimulator;
  let exporter: Exporter;
  let exporterServer: ReturnType<typeof serve>;
  let webhook: Server;
  let prom: ChildProcess;
  let am: ChildProcess;
  let promUrl: string;
  let rulesFile: string;
  let routeFile: string;
  const received: Received[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'pager-method-'));
    // A plant minute a second, from FIXED_NOW: the yield alert reads the units' Bernoulli CUSUM,
    // which evaluates new units, so the plant has to make some while the test runs.
    const t0 = Date.now();
    const clock = () => FIXED_NOW + (Date.now() - t0) * 60;
    sim = await startSimulatorServer({ seed: 4, now: clock, scale: { unitsPerHour: 60 } });
    exporter = wireExporter(
      configFromObject(
        {
          upstream: { base_url: sim.url, token: 'demo-token', max_requests_per_second: 10_000 },
          windows: ['1h'],
          planning: { refresh: { '1h': '1s' } },
          // Data age is measured on the fast clock: 1 s of polling is a plant minute.
          summary: { interval: '1s', levels: ['line'], max_staleness: '10h' },
          // A unit is final a plant minute after its last output.
          units: { interval: '1s', max_staleness: '10h', cusum: { settle: '1m' } },
        },
        { baseDir: process.cwd(), source: 'pager method e2e' },
      ),
      { wallClock: clock, logger: pino({ level: 'silent' }) },
    );
    const exporterPort = await new Promise<number>((resolve) => {
      exporterServer = serve(
        { fetch: exporter.app.fetch, port: 0, hostname: '127.0.0.1' },
        (i: AddressInfo) => resolve(i.port),
      );
    });
    const hook = await startWebhook((body, url) => {
      const msg = body as { alerts: Array<{ status: string; labels: Record<string, string> }> };
      received.push({
        at: Date.now(),
        receiver: url.slice(1),
        firing: msg.alerts
          .filter((a) => a.status === 'firing')
          .map((a) => id(a.labels))
          .sort(),
        resolved: msg.alerts
          .filter((a) => a.status === 'resolved')
          .map((a) => id(a.labels))
          .sort(),
      });
    });
    webhook = hook.server;
    const hookPort = hook.port;
    rulesFile = fastRules(dir);
    routeFile = fastRoute(dir, `http://127.0.0.1:${hookPort}`);
    const amPort = await freePort();
    am = spawn(
      alertmanagerPath() ?? 'alertmanager',
      [
        `--config.file=${routeFile}`,
        `--storage.path=${path.join(dir, 'am')}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        '--cluster.listen-address=',
      ],
      { stdio: 'ignore' },
    );
    await ready(`http://127.0.0.1:${amPort}`, am, 'alertmanager');
    const promPort = await freePort();
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: [rulesFile],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
        scrape_configs: [
          { job_name: 'station-exporter', static_configs: [{ targets: [`127.0.0.1:${exporterPort}`] }] },
        ],
      }),
    );
    prom = spawn(
      prometheusPath() ?? 'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'prom')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--rules.alert.resend-delay=1s',
      ],
      { stdio: 'ignore' },
    );
    promUrl = `http://127.0.0.1:${promPort}`;
    await ready(promUrl, prom, 'prometheus');
    exporter.scheduler.start();
  }, 60_000);

  afterAll(async () => {
    const stop = async (c: ChildProcess | undefined) => {
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    };
    await stop(prom);
    await stop(am);
    await new Promise<void>((r) => (webhook ? webhook.close(() => r()) : r()));
    await new Promise<void>((r) => (exporterServer ? exporterServer.close(() => r()) : r()));
    await exporter?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sends the notifications the live pair sends', async () => {
    const start = Date.now();
    const line = sim.sim.plant.sites[0]?.lines[1];
    // Let the healthy plant settle, then drive one line's yield down until its alert is notified,
    // and restore it until the resolution is notified.
    await new Promise((r) => setTimeout(r, 8 * S));
    sim.sim.setScenario({ yieldDrop: { lineId: line?.id ?? '', failRatio: 0.5 } });
    await until('the yield notification', 60_000, () =>
      received.find((n) => n.firing.some((f) => f.includes('StationLineLowFinalYield'))),
    );
    await new Promise((r) => setTimeout(r, 3 * S));
    sim.sim.setScenario({ yieldDrop: null });
    await until('the resolution', 60_000, () =>
      received.find((n) => n.resolved.some((f) => f.includes('StationLineLowFinalYield'))),
    );
    await new Promise((r) => setTimeout(r, 2 * GROUP_INTERVAL_MS));
    const end = Date.now();

    // The bench's method over the same samples.
    const { alerts } = loadAlerts([rulesFile], S);
    const startS = Math.ceil(start / S) * S;
    const spans = [];
    for (const alert of alerts) {
      const body = new URLSearchParams({
        query: alert.expr,
        start: String(startS / S),
        end: String(Math.floor(end / S)),
        step: '1s',
      });
      const res = (await (await fetch(`${promUrl}/api/v1/query_range`, { method: 'POST', body })).json()) as {
        data: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
      };
      const matrix = res.data.result.map((s) => ({ labels: s.metric, times: s.values.map(([t]) => t * S) }));
      const evalTimes = Array.from({ length: Math.floor((end - startS) / S) + 1 }, (_, i) => startS + i * S);
      spans.push(...firingSpans(alert, matrix, evalTimes));
    }
    const model = new AlertmanagerModel(parseAlertmanagerConfig(readFileSync(routeFile, 'utf8')), spans)
      .run(end)
      .map((n) => ({
        at: n.at,
        receiver: n.receiver,
        firing: n.firing.map(id).sort(),
        resolved: n.resolved.map(id).sort(),
      }));
    const shape = (ns: Received[]) =>
      ns.map((n) => ({ receiver: n.receiver, firing: n.firing, resolved: n.resolved }));
    expect(shape(model)).toEqual(shape(received));
    expect(received.length).toBeGreaterThanOrEqual(2);
    // The times may differ by the evaluation and scrape phases (1 s each here) and, for a group's
    // later notifications, by where the live group's timer ticks: up to one group_interval.
    const tolerance = GROUP_INTERVAL_MS + 2 * S;
    for (const [i, n] of model.entries())
      expect(Math.abs(n.at - (received[i]?.at ?? 0))).toBeLessThanOrEqual(tolerance);
  }, 180_000);
});
