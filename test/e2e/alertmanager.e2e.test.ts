/**
 * Alerts end to end: the simulator, the exporter, a real Prometheus with the shipped rules,
 * and a real Alertmanager sending to a webhook served here. One line is driven into a yield
 * drop; its yield alert must reach the webhook with its labels and annotations while the
 * other lines stay quiet, and resolve once the drop ends.
 *
 * The rules are the shipped file with only `for:`, `keep_firing_for`, the ranges of the yield
 * and retry event counters and the group intervals shortened, so the alert expressions under
 * test are the shipped ones. The yield alert reads the units collector's Bernoulli CUSUM events:
 * the simulator and the exporter share a clock running 60 times real time (a unit a second per
 * line), so that new units arrive and the drop is evaluated unit by unit.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import {
  alertmanagerPath,
  type RunningAlertmanager,
  startAlertmanager,
  startWebhook,
} from '../helpers/alertmanager-server.ts';
import { FIXED_NOW, ScrapeTarget } from '../helpers/harness.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';

const enabled = (Boolean(prometheusPath()) && Boolean(alertmanagerPath())) || Boolean(process.env.CI);
const RULES = path.resolve('prometheus/rules/station-exporter.rules.yml');
const ALERT = 'StationLineLowFinalYield';

interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * The shipped rules with `for:` and `keep_firing_for` at 1s, the 15m range of the CUSUM event
 * counters at 10s (a minute of the test's clock is a second), every group evaluated each second.
 */
function fastRules(dir: string): string {
  const doc = parse(readFileSync(RULES, 'utf8')) as {
    groups: Array<{
      interval?: string;
      rules: Array<{ for?: string; keep_firing_for?: string; expr: string }>;
    }>;
  };
  for (const g of doc.groups) {
    if (g.interval) g.interval = '1s';
    for (const r of g.rules) {
      if (r.for) r.for = '1s';
      if (r.keep_firing_for) r.keep_firing_for = '1s';
      r.expr = r.expr.replace(/(cusum_events_total\{[^}]*\})\[15m\]/g, '$1[10s]');
    }
  }
  const file = path.join(dir, 'rules.yml');
  writeFileSync(file, stringify(doc));
  return file;
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!enabled)('alerts through a real Prometheus and Alertmanager', () => {
  let dir: string;
  let sim: RunningSimulator;
  let exporter: Exporter;
  const scrapeTarget = new ScrapeTarget();
  let webhook: Server;
  let prom: RunningPrometheus;
  let am: RunningAlertmanager;
  const received: Array<{ at: number; alert: WebhookAlert }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'alerts-e2e-'));
    // A minute of plant time a second, from FIXED_NOW: seed 4's lines run above their 0.95 target.
    const t0 = Date.now();
    const clock = () => FIXED_NOW + (Date.now() - t0) * 60;
    sim = await startSimulatorServer({ seed: 4, now: clock, scale: { unitsPerHour: 60 } });
    const config = configFromObject(
      {
        upstream: { base_url: sim.url, token: 'demo-token', max_requests_per_second: 10_000 },
        windows: ['1h'],
        // Every line summary on every 1 s poll, so that the fault shows within seconds.
        planning: { refresh: { '1h': '1s' } },
        // Data age is measured on the fast clock: 1 s of polling is a plant minute.
        summary: { interval: '1s', levels: ['line'], max_staleness: '10h' },
        // The yield alert reads the units' CUSUM; a unit is final a plant minute after its output.
        units: { interval: '1s', max_staleness: '10h', cusum: { settle: '1m' } },
      },
      { baseDir: process.cwd(), source: 'alertmanager e2e' },
    );
    exporter = wireExporter(config, { wallClock: clock, logger: pino({ level: 'silent' }) });
    const address = await scrapeTarget.serve(exporter.app.fetch);
    const hook = await startWebhook((body) => {
      const at = Date.now();
      for (const alert of (body as { alerts: WebhookAlert[] }).alerts) received.push({ at, alert });
    });
    webhook = hook.server;
    const webhookPort = hook.port;
    am = await startAlertmanager(`http://127.0.0.1:${webhookPort}/hook`);
    prom = await startPrometheus(address, {
      ruleFiles: [fastRules(dir)],
      alertmanager: am.address,
    });
    exporter.scheduler.start();
  }, 40_000);

  afterAll(async () => {
    await prom?.stop();
    await am?.stop();
    await new Promise<void>((r) => (webhook ? webhook.close(() => r()) : r()));
    await scrapeTarget.close();
    await exporter?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fires for the one line with a yield drop, with its labels and annotations, and resolves', async () => {
    const lines = sim.sim.plant.sites.flatMap((s) =>
      s.lines.map((l) => ({ site: s.name, line: l.name, id: l.id })),
    );
    // Baseline: Prometheus has evaluated every line's yield, and no yield alert is pending or firing.
    await prom.waitFor(
      `station_line_final_yield_ratio{window="1h"} >= 0.95`,
      (r) => r.length === lines.length,
      20_000,
    );
    expect(await prom.query(`ALERTS{alertname="${ALERT}"}`)).toEqual([]);

    const target = lines[1]!;
    const faultAt = Date.now();
    sim.sim.setScenario({ yieldDrop: { lineId: target.id, failRatio: 0.5 } });
    const fired = await until('the firing alert at the webhook', 90_000, () =>
      received.find((r) => r.alert.labels.alertname === ALERT && r.alert.status === 'firing'),
    );
    const faultToWebhookMs = fired.at - faultAt;
    process.stderr.write(`alertmanager e2e: fault to webhook ${(faultToWebhookMs / 1000).toFixed(1)} s\n`);

    const { labels, annotations } = fired.alert;
    expect({
      site: labels.site,
      line: labels.line,
      severity: labels.severity,
    }).toEqual({
      site: target.site,
      line: target.line,
      severity: 'warning',
    });
    expect(annotations.summary).toBe(`Low final yield on line ${target.site} / ${target.line}`);
    expect(annotations.description).toMatch(
      new RegExp(
        `^The final yield of line ${target.line} at ${target.site} fell below its own level \\(the line.s usual week, 3 days back\\): its Bernoulli CUSUM`,
      ),
    );
    expect(annotations.runbook_url).toBe(
      'https://github.com/station-exporter/station-exporter/blob/main/docs/runbook.md#stationlinelowfinalyield',
    );

    sim.sim.setScenario({ yieldDrop: null });
    await until('the resolved alert at the webhook', 30_000, () =>
      received.find((r) => r.alert.labels.alertname === ALERT && r.alert.status === 'resolved'),
    );
    // The other lines stayed quiet: every yield alert the webhook saw was the target line's.
    const yieldAlerts = received.filter((r) => r.alert.labels.alertname === ALERT);
    expect(new Set(yieldAlerts.map((r) => `${r.alert.labels.site}/${r.alert.labels.line}`))).toEqual(
      new Set([`${target.site}/${target.line}`]),
    );
  }, 150_000);
});
