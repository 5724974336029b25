/**
 * A real Prometheus scrapes the exporter: it negotiates OpenMetrics and gzip, so this checks
 * the content negotiation, the spliced gzip stream and the format as Prometheus parses them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, ScrapeTarget, startHarness } from '../helpers/harness.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';

const enabled = Boolean(prometheusPath()) || Boolean(process.env.CI);

describe.skipIf(!enabled)('scraped by a real Prometheus', () => {
  let h: Harness;
  const target = new ScrapeTarget();
  let prom: RunningPrometheus;

  beforeAll(async () => {
    h = await startHarness({ config: { windows: ['1h', '8h'] } });
    await h.exporter.scheduler.pollOnce();
    const address = await target.serve(h.exporter.app.fetch);
    prom = await startPrometheus(address);
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    await target.close();
    await h?.close();
  });

  it('ingests every station and the self-metrics, with up == 1', async () => {
    const stations = h.sim.sim.plant.stations.length;
    await prom.waitFor('up{job="station"}', (r) => r[0]?.value[1] === '1');
    await prom.waitFor('count(station_info)', (r) => Number(r[0]?.value[1]) === stations);
    const scrapes = await prom.query('station_exporter_scrapes_total');
    expect(scrapes.map((r) => `${r.metric.format}/${r.metric.encoding}`)).toContain('openmetrics/gzip');
    const yieldSeries = await prom.query('count(station_final_yield_ratio{window="1h"})');
    expect(Number(yieldSeries[0]?.value[1])).toBe(stations);
  }, 60_000);
});
