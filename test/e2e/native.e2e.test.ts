/**
 * Prometheus-native data on a real Prometheus (Debian's 2.42): one started with
 * `--enable-feature=native-histograms,exemplar-storage` scrapes the protobuf exposition, and its
 * answers to histogram_count, histogram_fraction, increase(station_units_total[…]) and
 * /api/v1/query_exemplars equal what this test computes from the simulator's own records
 * (fetched from its HTTP API, not through the exporter). One without the flags keeps scraping
 * OpenMetrics: every family but the histogram, no broken output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketKey } from '../../src/exposition/native-histogram.ts';
import { requestUrl } from '../../src/upstream/endpoints.ts';
import { FIXED_NOW, type Harness, ScrapeTarget, simulatorData, startHarness } from '../helpers/harness.ts';
import { bucketUpperBound } from '../helpers/native-buckets.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';
import { decodeDelimited } from '../helpers/protobuf.ts';

const enabled = Boolean(prometheusPath()) || Boolean(process.env.CI);

const NAME = 'vcc_3v3';
const MINUTES = 30;

interface RawRecord {
  station_id: string;
  unit_serial: string;
  time_created: string;
  name?: string;
  value?: string;
  direction?: string;
  result?: string | null;
}

/** Records of the simulator's API for one station over [from, to], read as JSON. */
async function simulatorRecords(
  h: Harness,
  endpoint: 'metrics' | 'units',
  stationId: string,
): Promise<RawRecord[]> {
  const window = { stationIds: [stationId], from: new Date(FIXED_NOW - 3_600_000), to: new Date(h.now()) };
  const url =
    endpoint === 'metrics'
      ? requestUrl(h.sim.url, 'metrics', { ...window, names: [NAME] })
      : requestUrl(h.sim.url, 'units', { ...window, directions: ['input', 'output'] });
  // Counted from the exporter's first poll (FIXED_NOW) on.
  return (await simulatorData<RawRecord>(url)).filter((r) => Date.parse(r.time_created) >= FIXED_NOW);
}

describe.skipIf(!enabled)('native histograms, unit counters and exemplars on a real Prometheus', () => {
  let h: Harness;
  const target = new ScrapeTarget();
  let native: RunningPrometheus;
  let plain: RunningPrometheus;
  let stationId: string;

  beforeAll(async () => {
    h = await startHarness({
      config: { windows: ['1h'], measurements: { enabled: true, names: [NAME], interval: '1m' } },
    });
    stationId = h.sim.sim.plant.stations[0]!.id;
    // The first poll reads an hour of history, which counts for nothing.
    await h.exporter.scheduler.pollOnce();
    const address = await target.serve(h.exporter.app.fetch);
    native = await startPrometheus(address, {
      features: ['native-histograms', 'exemplar-storage'],
    });
    plain = await startPrometheus(address);
    // Both scrape the counters at 0 before they count anything.
    const unitsAtZero = (r: Array<{ value: [number, string] }>) =>
      r.length > 0 && r.every((x) => x.value[1] === '0');
    await native.waitFor(`station_units_total{station_id="${stationId}", direction="output"}`, unitsAtZero);
    await plain.waitFor(`station_units_total{station_id="${stationId}", direction="output"}`, unitsAtZero);
    h.advance(MINUTES * 60_000);
    await h.exporter.scheduler.pollOnce();
  }, 120_000);

  afterAll(async () => {
    await native?.stop();
    await plain?.stop();
    await target.close();
    await h?.close();
  });

  it('serves protobuf to a Prometheus with native histograms and OpenMetrics to one without', async () => {
    await native.waitFor('up{job="station"}', (r) => r[0]?.value[1] === '1');
    await plain.waitFor('up{job="station"}', (r) => r[0]?.value[1] === '1');
    // The exporter counts each scrape by format: both Prometheus servers' formats show up.
    await native.waitFor('station_exporter_scrapes_total{format="protobuf"}', (r) => r.length > 0);
    await native.waitFor('station_exporter_scrapes_total{format="openmetrics"}', (r) => r.length > 0);
    const formats = (await native.query('station_exporter_scrapes_total')).map((r) => r.metric.format);
    expect(formats).not.toContain('text');
  }, 60_000);

  it('histogram_count and histogram_fraction equal the counts of the simulator records', async () => {
    const values = (await simulatorRecords(h, 'metrics', stationId)).map((r) => Number(r.value));
    expect(values.length).toBeGreaterThan(5);
    const selector = `station_measurement_value{station_id="${stationId}", metric="${NAME}"}`;
    await native.waitFor(
      `sum(histogram_count(${selector}))`,
      (r) => Number(r[0]?.value[1]) === values.length,
    );
    // A boundary of Prometheus's buckets in the middle of the values (schema 8): the fraction at
    // or below it is then exact, not interpolated.
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const bound = bucketUpperBound(bucketKey(median, 8), 8);
    const below = values.filter((v) => v <= bound).length;
    expect(below).toBeGreaterThan(0);
    const [fraction] = await native.query(
      `histogram_fraction(0, ${bound}, sum by (station_id) (${selector}))`,
    );
    expect(Number(fraction?.value[1])).toBeCloseTo(below / values.length, 12);
    // The protobuf the exporter serves holds the histogram at schema 8 (the bound above relies on it).
    const res = await h.exporter.app.request('/metrics', {
      headers: {
        accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited',
      },
    });
    const family = decodeDelimited(new Uint8Array(await res.arrayBuffer())).find(
      (f) => f.name === 'station_measurement_value',
    );
    expect(family?.metric?.every((m) => m.histogram?.schema === 8)).toBe(true);
  }, 60_000);

  it('increase(station_units_total[…]) equals the unit records the simulator added', async () => {
    const units = await simulatorRecords(h, 'units', stationId);
    const expected = new Map<string, number>();
    for (const u of units) {
      const key = `${u.direction}/${u.result ?? 'unknown'}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    expect(units.length).toBeGreaterThan(0);
    const selector = `station_units_total{station_id="${stationId}"}`;
    const total = units.length;
    await native.waitFor(`sum(${selector})`, (r) => Number(r[0]?.value[1]) === total);
    // Evaluated at the newest sample's own time, and over a range from before the first (which is
    // 0), increase() does not extrapolate: it is exactly the counted records.
    const raw = await native.queryAt(`${selector}[10m]`);
    const last = Math.max(...raw.flatMap((s) => (s.values ?? []).map(([t]) => t)));
    const increases = await native.queryAt(`increase(${selector}[10m])`, last);
    const got = new Map(
      increases.map((s) => [`${s.metric.direction}/${s.metric.result}`, Number(s.value![1])]),
    );
    for (const [key, n] of expected) expect(got.get(key), key).toBeCloseTo(n, 9);
    for (const [key, n] of got) if (!expected.has(key)) expect(n, key).toBe(0);
  }, 60_000);

  it('stores the unit serials as exemplars of the counter and of the histogram', async () => {
    const units = await simulatorRecords(h, 'units', stationId);
    const newestOutput = units
      .filter((u) => u.direction === 'output')
      .reduce((a, b) => (Date.parse(b.time_created) >= Date.parse(a.time_created) ? b : a));
    const values = await simulatorRecords(h, 'metrics', stationId);
    const newestValue = values.reduce((a, b) =>
      Date.parse(b.time_created) >= Date.parse(a.time_created) ? b : a,
    );
    const range = `&start=${(FIXED_NOW - 3_600_000) / 1000}&end=${h.now() / 1000 + 60}`;
    const exemplars = async (expr: string) => {
      const res = await fetch(
        `${native.url}/api/v1/query_exemplars?query=${encodeURIComponent(expr)}${range}`,
      );
      const body = (await res.json()) as {
        data: Array<{
          seriesLabels: Record<string, string>;
          exemplars: Array<{ labels: Record<string, string>; value: string }>;
        }>;
      };
      return body.data.flatMap((s) => s.exemplars.map((e) => ({ series: s.seriesLabels, ...e })));
    };
    const deadline = Date.now() + 20_000;
    let counter: Awaited<ReturnType<typeof exemplars>> = [];
    let histogram: Awaited<ReturnType<typeof exemplars>> = [];
    while (Date.now() < deadline) {
      counter = await exemplars(`station_units_total{station_id="${stationId}", direction="output"}`);
      histogram = await exemplars(`station_measurement_value{station_id="${stationId}", metric="${NAME}"}`);
      if (counter.length > 0 && histogram.length > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const counterSerials = counter.map((e) => e.labels.unit_serial);
    expect(counterSerials).toContain(newestOutput.unit_serial);
    expect(histogram.map((e) => e.labels.unit_serial)).toContain(newestValue.unit_serial);
    expect(histogram.find((e) => e.labels.unit_serial === newestValue.unit_serial)?.value).toBe(
      String(Number(newestValue.value)),
    );
  }, 60_000);

  it('a Prometheus without the feature flags scrapes OpenMetrics: every other family, no histogram, no broken scrape', async () => {
    const units = await simulatorRecords(h, 'units', stationId);
    // The counter arrives whole over OpenMetrics; the histogram, which no text format carries, not at all.
    await plain.waitFor(
      `sum(station_units_total{station_id="${stationId}"})`,
      (r) => Number(r[0]?.value[1]) === units.length,
    );
    expect(await plain.query('count({__name__=~"station_measurement_value.*"})')).toEqual([]);
    expect(
      Number(
        (await plain.query(`count(station_measurement_last_value{station_id="${stationId}"})`))[0]?.value[1],
      ),
    ).toBeGreaterThan(0);
    const up = await plain.query('up{job="station"}');
    expect(up[0]?.value[1]).toBe('1');
  }, 60_000);
});
