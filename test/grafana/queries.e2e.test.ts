/**
 * Every dashboard query and every rule expression runs against a real Prometheus that scrapes
 * an exporter polling the simulator: template variables are resolved the way Grafana does
 * (label_values, chained), substituted, and each query must succeed; the core panels must show
 * data. One Prometheus for the whole file.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSimulator, type ProcessScenario } from '../../src/simulator/index.ts';
import { FIXED_NOW, type Harness, ScrapeTarget, startHarness } from '../helpers/harness.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';
import {
  type DashboardJson,
  generatedDashboards,
  parseLabelValues,
  queryPanels,
  substitute,
} from './inspect.ts';
import { instantQuery, labelValues } from './prom-api.ts';

const enabled = Boolean(prometheusPath()) || Boolean(process.env.CI);

/**
 * Panels allowed to be empty against a healthy simulator, with the reason: nothing was skipped,
 * so the series of those counters do not exist yet; and the failure Pareto lists only
 * measurements with failed attribute results, which a healthy window may not have.
 */
const MAY_BE_EMPTY = new Set(['Records skipped', 'Level entities skipped', 'Failures by measurement']);

const SEED = 7;

/** Measurement names with a control chart: the numeric ones of the config. */
const CHARTED = ['vcc_3v3', 'idle_current', 'insulation_resistance'];

/**
 * A mean shift of 4 sd on every station's charted names half an hour before the fixed now, so
 * that whichever station or line a dashboard shows first has control charts out of control and
 * the violation tables and annotations have data. (The simulator's default slow drift trips some
 * rules at this clock too, but that is chance, not something this test should rest on.)
 */
function shiftEverywhere(): ProcessScenario {
  const stations = createSimulator({ seed: SEED, now: () => FIXED_NOW }).plant.stations;
  return {
    events: stations.flatMap((s) =>
      CHARTED.map((name) => ({
        kind: 'shift' as const,
        stationId: s.id,
        name,
        fromMs: FIXED_NOW - 30 * 60_000,
        sigmas: 4,
      })),
    ),
  };
}

/** An unsigned JWT whose exp the exporter reads, so that the token panels have data. */
function jwt(expSeconds: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'dashboards', exp: expSeconds })}.sig`;
}

/** Picks a value per variable as a user would: the first value, or "All" for multi-value ones. */
async function resolveVariables(base: string, d: DashboardJson): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const v of d.templating.list) {
    if (v.type !== 'query') continue;
    const { selector, label } = parseLabelValues(v);
    const options = await labelValues(base, substitute(selector, values), label);
    expect(options.length, `${d.title}: $${v.name} lists no values`).toBeGreaterThan(0);
    values[v.name] = v.includeAll && v.allValue ? v.allValue : options[0]!;
  }
  return values;
}

describe.skipIf(!enabled)('dashboard and rule queries on a real Prometheus', () => {
  let h: Harness;
  const target = new ScrapeTarget();
  let prom: RunningPrometheus;

  beforeAll(async () => {
    const token = jwt(Math.floor(FIXED_NOW / 1000) + 3 * 86_400);
    h = await startHarness({
      sim: { seed: SEED, tokens: { [token]: { sites: 'all' } }, process: shiftEverywhere() },
      upstream: { token },
      config: {
        windows: ['1h', '24h'],
        measurements: {
          enabled: true,
          names: ['vcc_3v3', 'idle_current', 'insulation_resistance', 'firmware_check'],
          min_samples: 5,
          control: {
            names: CHARTED,
            baseline: { rolling: '6h' },
            min_samples: 25,
            evaluation_window: '1h',
          },
        },
        units: { enabled: true },
      },
    });
    const address = await target.serve(h.exporter.app.fetch);
    // Prometheus starts while the exporter polls: both take seconds, neither needs the other.
    // Native histograms on, so that the distribution section has its series (Prometheus then scrapes protobuf).
    [prom] = await Promise.all([
      startPrometheus(address, { features: ['native-histograms', 'exemplar-storage'] }),
      h.exporter.scheduler.pollOnce(),
    ]);
    // Every collector's data scraped, and three scrapes: enough samples for rate() over the substituted $__rate_interval.
    const everyCollector =
      'count(station_info) and count(station_final_yield_ratio) and count(station_unit_serials) ' +
      'and count(station_measurement_last_value) and count(station_measurement_control_state)';
    await prom.waitFor(everyCollector, (r) => r.length > 0, 25_000);
    await prom.waitFor(
      'count_over_time(station_exporter_build_info[1m])',
      (r) => Number(r[0]?.value[1]) >= 3,
      25_000,
    );
  }, 45_000);

  afterAll(async () => {
    await prom?.stop();
    await target.close();
    await h?.close();
  });

  it('lists values for every template variable, each chained to the ones before it', async () => {
    const listed: Record<string, number> = {};
    for (const { dashboard: d } of generatedDashboards()) {
      const values: Record<string, string> = {};
      for (const v of d.templating.list.filter((x) => x.type === 'query')) {
        const { selector, label } = parseLabelValues(v);
        const options = await labelValues(prom.url, substitute(selector, values), label);
        listed[`${d.title} $${v.name}`] = options.length;
        values[v.name] = v.includeAll && v.allValue ? v.allValue : (options[0] ?? '');
      }
    }
    // Every variable of every dashboard, none empty: 2 on the overview, 4 on the line, 6 on the station, 2 on health.
    expect(Object.keys(listed)).toHaveLength(14);
    expect(Object.entries(listed).filter(([, n]) => n === 0)).toEqual([]);
  }, 20_000);

  it('runs every panel query of every dashboard, and the core panels have data', async () => {
    const failures: string[] = [];
    const empty: string[] = [];
    let queries = 0;
    for (const { dashboard: d } of generatedDashboards()) {
      const values = await resolveVariables(prom.url, d);
      for (const p of queryPanels(d)) {
        let series = 0;
        for (const t of p.targets) {
          const expr = substitute(t.expr, values);
          const out = await instantQuery(prom.url, expr);
          queries++;
          if (out.error) failures.push(`${d.title} / ${p.title}: ${out.error}\n  ${expr}`);
          series += out.series;
        }
        if (series === 0 && !MAY_BE_EMPTY.has(p.title)) empty.push(`${d.title} / ${p.title}`);
      }
    }
    expect(failures).toEqual([]);
    expect(empty, 'panels without data').toEqual([]);
    expect(queries).toBeGreaterThan(50);
  }, 20_000);

  it('runs every annotation query, and the control violations mark the station shown', async () => {
    const events: Record<string, number> = {};
    for (const { dashboard: d } of generatedDashboards()) {
      const values = await resolveVariables(prom.url, d);
      for (const a of d.annotations.list ?? []) {
        if (!a.expr) continue;
        const expr = substitute(a.expr, values);
        const out = await instantQuery(prom.url, expr);
        expect(out.error, `${d.title} / ${a.name}\n  ${expr}`).toBeUndefined();
        events[`${d.title} / ${a.name}`] = out.series;
      }
    }
    expect(events).toEqual({
      'Station exporter / Station / Control violations': expect.any(Number),
      'Station exporter / Station / Shift signals': 0,
      // No limits file in the example config: no chart is approved.
      'Station exporter / Station / Limits approved': 0,
      'Station exporter / Station / Excluded from the study': 0,
    });
    // The shift is in the history of the exporter's first poll: it shows in the window gauge,
    // but a signal replayed from history is dated nowhere (issue 30: nothing to mark again after
    // a restart). The query runs; a signal on a later poll would be marked.
    expect(events['Station exporter / Station / Control violations']).toBeGreaterThan(0);
  }, 20_000);

  it('runs every recording and alerting rule expression', async () => {
    const read = (file: string) =>
      parse(readFileSync(file, 'utf8')) as {
        groups: Array<{ rules: Array<{ expr: string; record?: string; alert?: string }> }>;
      };
    const failures: string[] = [];
    const all = [
      ...read('prometheus/rules/station-exporter.rules.yml').groups,
      ...read('prometheus/rules/station-exporter.nelson.rules.yml').groups,
    ];
    for (const r of all.flatMap((g) => g.rules)) {
      const out = await instantQuery(prom.url, r.expr);
      if (out.error) failures.push(`${r.record ?? r.alert}: ${out.error}`);
    }
    expect(failures).toEqual([]);
    // The rules' inputs exist with the labels the rules join on.
    const plant = await instantQuery(
      prom.url,
      'sum by (window) (station_site_final_pass_units) / sum by (window) (station_site_unique_output_units)',
    );
    expect(plant.series).toBe(2);
  }, 20_000);
});
