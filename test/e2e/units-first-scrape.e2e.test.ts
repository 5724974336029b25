/**
 * Unit counters from the first scrape, on a real Prometheus (Debian's 2.42): every counter series
 * a station's 24 h of history implies is exported at 0 by the first poll, so that the units of the
 * first minute after start, and after a restart, are all counted by increase(). One Prometheus
 * scrapes OpenMetrics (which carries `_created` lines: 2.42 stores them as series of their own),
 * one protobuf (`created_timestamp`; its first scrape waits for the protobuf render).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { requestUrl } from '../../src/upstream/endpoints.ts';
import { FIXED_NOW, type Harness, ScrapeTarget, simulatorData, startHarness } from '../helpers/harness.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';

const enabled = Boolean(prometheusPath()) || Boolean(process.env.CI);

const MINUTE = 60_000;

interface UnitWire {
  station_id: string;
  time_created: string;
  direction: string;
  result?: string | null;
}

/** The simulator's unit records dated in [from, to], by station, direction and result. */
async function unitsBetween(h: Harness, from: number, to: number): Promise<Map<string, number>> {
  const stationIds = h.sim.sim.plant.stations.map((s) => s.id);
  const url = requestUrl(h.sim.url, 'units', {
    stationIds,
    from: new Date(from - MINUTE),
    to: new Date(to),
    directions: ['input', 'output'],
  });
  const counts = new Map<string, number>();
  for (const u of await simulatorData<UnitWire>(url)) {
    const t = Date.parse(u.time_created);
    if (t < from || t > to) continue;
    const key = `${u.station_id}/${u.direction}/${u.result ?? 'unknown'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function add(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const sum = new Map(a);
  for (const [k, n] of b) sum.set(k, (sum.get(k) ?? 0) + n);
  return sum;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);

/**
 * increase() per series over a range that starts before the first sample and ends at the newest
 * sample: Prometheus then does not extrapolate (the first sample is 0), so it is exact.
 */
async function increases(prom: RunningPrometheus): Promise<Map<string, number>> {
  const raw = await prom.queryAt('station_units_total[10m]');
  const last = Math.max(...raw.flatMap((s) => (s.values ?? []).map(([t]) => t)));
  const r = await prom.queryAt('increase(station_units_total[10m])', last);
  return new Map(
    r.map((s) => [
      `${s.metric.station_id}/${s.metric.direction}/${s.metric.result}`,
      Math.round(Number(s.value![1]) * 1e9) / 1e9,
    ]),
  );
}

/** Expected counts as increase() gives them: every series exported, 0 where nothing arrived. */
function expectCounted(got: Map<string, number>, expected: Map<string, number>): void {
  for (const [key, n] of expected) expect(got.get(key), key).toBe(n);
  for (const [key, n] of got) if (!expected.has(key)) expect(n, key).toBe(0);
}

describe.skipIf(!enabled)('unit counters from the first scrape on a real Prometheus', () => {
  let h: Harness;
  let current: Exporter;
  const target = new ScrapeTarget();
  let om: RunningPrometheus;
  let pb: RunningPrometheus;
  let firstMinute: Map<string, number>;

  /** Waits until both Prometheus servers have scraped every unit counter at `n` in sum. */
  async function scraped(n: number): Promise<void> {
    for (const prom of [om, pb]) {
      await prom.waitFor('sum(station_units_total)', (r) => Number(r[0]?.value[1]) === n, 30_000);
    }
  }

  beforeAll(async () => {
    h = await startHarness({
      sim: { scale: { sites: 1, linesPerSite: 2, stationsPerLine: 4, unitsPerHour: 120 } },
      config: { windows: ['24h'], measurements: { enabled: false } },
    });
    current = h.exporter;
    // The first poll reads 24 h of history: it counts for nothing, but says which kinds exist.
    await current.scheduler.pollOnce();
    const address = await target.serve((req) => current.app.fetch(req));
    om = await startPrometheus(address);
    pb = await startPrometheus(address, { features: ['native-histograms'] });
    await scraped(0);
  }, 120_000);

  afterAll(async () => {
    await om?.stop();
    await pb?.stop();
    await target.close();
    // The first exporter is closed by the restart, or is still the current one.
    await current?.close();
    await h?.sim.close();
  });

  it('exports every kind of the history at 0 from the first scrape, and counts the first minute', async () => {
    const series = await om.query('station_units_total');
    expect(series.length).toBeGreaterThan(8);
    expect(series.every((s) => s.value[1] === '0')).toBe(true);
    h.advance(MINUTE);
    await current.scheduler.pollOnce();
    firstMinute = await unitsBetween(h, FIXED_NOW, h.now());
    expect(total(firstMinute)).toBeGreaterThan(5);
    await scraped(total(firstMinute));
    for (const prom of [om, pb]) expectCounted(await increases(prom), firstMinute);
  }, 90_000);

  it('carries the start as created time: OpenMetrics _created lines reach Prometheus 2.42 as series', async () => {
    const created = await om.query('station_units_created');
    expect(created.length).toBe((await om.query('station_units_total')).length);
    expect(created.every((s) => Number(s.value[1]) === FIXED_NOW / 1000)).toBe(true);
    // The protobuf scraper reads created_timestamp (2.42 ignores it) and stores no such series.
    expect(await pb.query('station_units_created')).toEqual([]);
    // It did get protobuf: its first scrape waited for the render on first ask.
    const formats = (await pb.query('station_exporter_scrapes_total')).map((s) => s.metric.format);
    expect(formats).toContain('protobuf');
  }, 30_000);

  it('counts the first minute after a restart too: the counters restart at 0, not at their first unit', async () => {
    expect(firstMinute).toBeDefined();
    const restartAt = h.now();
    const before = current;
    // A new process: new counters, the same upstream and history.
    current = wireExporter(h.config, { wallClock: h.now, logger: pino({ level: 'silent' }) });
    await before.close();
    await current.scheduler.pollOnce();
    await scraped(0);
    h.advance(MINUTE);
    await current.scheduler.pollOnce();
    const afterRestart = await unitsBetween(h, restartAt, h.now());
    expect(total(afterRestart)).toBeGreaterThan(5);
    await scraped(total(afterRestart));
    // increase() over both minutes: the reset at the restart loses nothing.
    for (const prom of [om, pb]) expectCounted(await increases(prom), add(firstMinute, afterRestart));
    const created = await om.query('station_units_created');
    expect(created.every((s) => Number(s.value[1]) === restartAt / 1000)).toBe(true);
  }, 90_000);
});
