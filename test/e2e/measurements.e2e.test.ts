/**
 * Measurements and units end to end: an exporter polls the simulator on a fixed seed and
 * clock, and every statistic must equal what is computed directly from the simulator's own
 * records (`sim.metricsBetween`, `sim.unitsBetween`) for the same window.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { standaloneDependencies } from '../../src/collectors/collector.ts';
import { MeasurementsJob } from '../../src/collectors/measurements/job.ts';
import { UnitsJob } from '../../src/collectors/units/job.ts';
import { WINDOW_STATISTICS } from '../../src/config/measurements-schema.ts';
import type { WindowSpec } from '../../src/config/schema.ts';
import type { Family } from '../../src/exposition/model.ts';
import { DEFAULT_MAX_SPAN_MS } from '../../src/records/fetch.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../src/simulator/types.ts';
import { longestWindowMs, windowBounds } from '../../src/time/windows.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { duplicateSeries, type ParsedSample, parseExposition } from '../helpers/exposition.ts';
import { dataExposition, type Harness, startHarness } from '../helpers/harness.ts';
import { checkMetrics, promtoolPath } from '../helpers/promtool.ts';

const NAMES = [
  'vcc_3v3',
  'idle_current',
  'insulation_resistance',
  'firmware_check',
  'test_time',
  'solder_height',
];
const MIN = 60_000;

function harness(
  opts: {
    sim?: SimulatorOptions;
    measurements?: Record<string, unknown>;
    upstream?: Record<string, unknown>;
  } = {},
) {
  return startHarness({
    sim: opts.sim,
    upstream: opts.upstream,
    config: {
      windows: ['1h', '8h', { name: 'today', type: 'today', timezone: 'America/Chicago' }],
      summary: { enabled: false },
      measurements: {
        enabled: true,
        names: [...NAMES.slice(1), { name: NAMES[0], min_samples: 5 }],
        // Every statistic, not only the default selection: these tests check them all.
        statistics: { default: [...WINDOW_STATISTICS] },
        ...opts.measurements,
      },
    },
  });
}

const minSamplesOf = (h: Harness) => (name: string) =>
  h.config.measurements.names.find((n) => n.name === name)?.minSamples ?? h.config.measurements.minSamples;

async function samplesOf(h: Harness): Promise<ParsedSample[]> {
  return parseExposition(await dataExposition(h.exporter));
}

/** Checks the whole exposition against the simulator's records at the harness's clock. */
async function checkAll(h: Harness): Promise<number> {
  const samples = indexSamples(await samplesOf(h));
  const now = h.now();
  const longest = new Date(now - longestWindowMs(h.config.windows, new Date(now)));
  const sim = h.sim.sim;
  const { series, limits } = checkLatest(sim, samples, NAMES, longest, new Date(now));
  checkMeasurements(sim, samples, h.config.windows, NAMES, minSamplesOf(h), now, limits);
  checkUnits(sim, samples, h.config.windows, longest, now);
  return series;
}

const metricRequests = (h: Harness) => h.sim.sim.requests.filter((r) => r.path === '/metrics');
/** The `[from, to)` a records request asked for, epoch ms. */
const spanOf = (r: ReturnType<typeof metricRequests>[number]) => ({
  from: Date.parse(r.query.from?.[0] ?? ''),
  to: Date.parse(r.query.to?.[0] ?? ''),
});

/** A value as a quality engineer reads it: plain decimal or exponent notation, ASCII padding allowed. */
const DECIMAL = /^[ \t\n\v\f\r]*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[ \t\n\v\f\r]*$/;
const num = (s: string | number | null) =>
  typeof s === 'number' ? s : s === null || !DECIMAL.test(s) ? Number.NaN : Number(s);
/** A spread within a few ulps (2^-52 relative) of the mean's magnitude is rounding noise: zero. */
const spreadOrZero = (sd: number | undefined, mean: number | undefined) =>
  sd === undefined || mean === undefined ? sd : sd <= 8 * Number.EPSILON * Math.abs(mean) ? 0 : sd;

const KEY_LABELS = ['station_id', 'metric', 'slot', 'window', 'direction', 'result'];
type Index = Map<string, ParsedSample[]>;
const keyOf = (name: string, labels: Readonly<Record<string, string>>) =>
  [name, ...KEY_LABELS.map((k) => labels[k] ?? '')].join('|');

/** Samples by name and identifying labels, so that each lookup is cheap. */
function indexSamples(samples: readonly ParsedSample[]): Index {
  const index: Index = new Map();
  for (const s of samples) {
    const key = keyOf(s.name, s.labels);
    index.set(key, [...(index.get(key) ?? []), s]);
  }
  return index;
}

/** Finds exactly one sample, or none when `want` is undefined. */
function expectSample(samples: Index, name: string, labels: Record<string, string>, want?: number) {
  const found = (samples.get(keyOf(name, labels)) ?? []).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  const where = `${name} ${JSON.stringify(labels)}`;
  if (want === undefined) {
    expect(found, where).toHaveLength(0);
    return;
  }
  expect(found, where).toHaveLength(1);
  const got = found[0]?.value ?? Number.NaN;
  expect(Math.abs(got - want), `${where}: ${got} vs ${want}`).toBeLessThanOrEqual(
    1e-9 * Math.max(1, Math.abs(want)),
  );
}

/** Checks every measurement series and window against `sim.metricsBetween`; returns the windows checked. */
function checkMeasurements(
  sim: Simulator,
  samples: Index,
  windows: readonly WindowSpec[],
  names: readonly string[],
  minSamples: (name: string) => number,
  now: number,
  currentLimits: ReadonlyMap<string, { upper?: number; lower?: number }>,
): number {
  const ids = sim.plant.stations.map((s) => s.id);
  let checked = 0;
  for (const spec of windows) {
    const { from, to } = windowBounds(spec, new Date(now));
    const groups = new Map<string, ReturnType<Simulator['metricsBetween']>>();
    for (const r of sim.metricsBetween(ids, { from: from, to: to, names: [...names] })) {
      const key = `${r.station_id}|${r.name}|${r.slot ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    for (const recs of groups.values()) {
      const last = recs[recs.length - 1];
      if (!last) continue;
      const labels: Record<string, string> = {
        station_id: last.station_id,
        metric: last.name,
        window: spec.name,
      };
      // An empty slot is no slot, as in Prometheus.
      if (last.slot) labels.slot = last.slot;
      const numeric = recs.filter((r) => !Number.isNaN(num(r.value)));
      const values = numeric.map((r) => num(r.value));
      const n = values.length;
      const mean = n > 0 ? values.reduce((a, b) => a + b, 0) / n : undefined;
      const sd = spreadOrZero(
        mean !== undefined && n >= 2
          ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1))
          : undefined,
        mean,
      );
      // I-MR within sigma: mean moving range of time-ordered values over d2 = 1.128.
      const ranges = values.slice(1).map((v, i) => Math.abs(v - (values[i] ?? 0)));
      const within = spreadOrZero(
        n >= 2 ? ranges.reduce((a, b) => a + b, 0) / ranges.length / 1.128 : undefined,
        mean,
      );
      // Every value against its own record's limits.
      const limited = numeric.some(
        (r) => !Number.isNaN(num(r.limit_upper)) || !Number.isNaN(num(r.limit_lower)),
      );
      const outside = numeric.filter(
        (r) => num(r.value) > num(r.limit_upper) || num(r.value) < num(r.limit_lower),
      ).length;
      // Capability against the current limits: the newest numeric record with limits the exporter holds.
      const current = currentLimits.get(`${last.station_id}|${last.name}|${last.slot ?? ''}`);
      const usl = current?.upper ?? Number.NaN;
      const lsl = current?.lower ?? Number.NaN;
      const sides = [usl - (mean ?? 0), (mean ?? 0) - lsl].filter((x) => !Number.isNaN(x));
      const enough = mean !== undefined && n >= minSamples(last.name) && sides.length > 0;
      const ppk = enough && sd ? Math.min(...sides) / (3 * sd) : undefined;
      const cpk = enough && within ? Math.min(...sides) / (3 * within) : undefined;
      const width = usl - lsl;
      const pp = ppk !== undefined && !Number.isNaN(width) && sd ? width / (6 * sd) : undefined;
      const cp = cpk !== undefined && !Number.isNaN(width) && within ? width / (6 * within) : undefined;
      expectSample(samples, 'station_measurement_window_samples', labels, n);
      expectSample(samples, 'station_measurement_window_non_numeric_samples', labels, recs.length - n);
      expectSample(samples, 'station_measurement_window_mean', labels, mean);
      expectSample(
        samples,
        'station_measurement_window_min',
        labels,
        n > 0 ? Math.min(...values) : undefined,
      );
      expectSample(
        samples,
        'station_measurement_window_max',
        labels,
        n > 0 ? Math.max(...values) : undefined,
      );
      expectSample(samples, 'station_measurement_window_stddev', labels, sd);
      expectSample(
        samples,
        'station_measurement_window_out_of_spec_samples',
        labels,
        limited && n > 0 ? outside : undefined,
      );
      expectSample(samples, 'station_measurement_window_cpk', labels, cpk);
      expectSample(samples, 'station_measurement_window_pp', labels, pp);
      expectSample(samples, 'station_measurement_window_cp', labels, cp);
      const passes = recs.filter((r) => /^(pass|ok)$/i.test(String(r.value))).length;
      const fails = recs.filter((r) => /^(fail|ng|nok)$/i.test(String(r.value))).length;
      if (passes + fails > 0) {
        expectSample(
          samples,
          'station_measurement_window_attribute_samples',
          { ...labels, outcome: 'pass' },
          passes,
        );
        expectSample(
          samples,
          'station_measurement_window_attribute_samples',
          { ...labels, outcome: 'fail' },
          fails,
        );
      }
      expectSample(samples, 'station_measurement_window_ppk', labels, ppk);
      checked++;
    }
  }
  return checked;
}

/** Checks latest values, their times and limits against the records of the longest window. */
function checkLatest(sim: Simulator, samples: Index, names: readonly string[], from: Date, to: Date) {
  const latest = new Map<string, ReturnType<Simulator['metricsBetween']>[number]>();
  const latestNumeric = new Map<string, ReturnType<Simulator['metricsBetween']>[number]>();
  const limits = new Map<string, { upper?: number; lower?: number }>();
  for (const r of sim.metricsBetween(
    sim.plant.stations.map((s) => s.id),
    { from: from, to: to, names: [...names] },
  )) {
    const key = `${r.station_id}|${r.name}|${r.slot ?? ''}`;
    latest.set(key, r);
    if (Number.isNaN(num(r.value))) continue;
    latestNumeric.set(key, r);
    const upper = num(r.limit_upper);
    const lower = num(r.limit_lower);
    if (!Number.isNaN(upper) || !Number.isNaN(lower)) {
      limits.set(key, {
        ...(Number.isNaN(upper) ? {} : { upper }),
        ...(Number.isNaN(lower) ? {} : { lower }),
      });
    }
  }
  for (const [key, r] of latest) {
    const labels: Record<string, string> = { station_id: r.station_id, metric: r.name };
    if (r.slot) labels.slot = r.slot;
    const v = latestNumeric.get(key);
    expectSample(samples, 'station_measurement_last_value', labels, v ? num(v.value) : undefined);
    expectSample(
      samples,
      'station_measurement_last_timestamp_seconds',
      labels,
      v && Date.parse(v.time_created) / 1000,
    );
    // The limits of the newest numeric record that has limits.
    expectSample(samples, 'station_measurement_upper_limit', labels, limits.get(key)?.upper);
    expectSample(samples, 'station_measurement_lower_limit', labels, limits.get(key)?.lower);
    expectSample(
      samples,
      'station_measurement_info',
      { station_id: r.station_id, metric: r.name, ...(r.unit ? { unit: r.unit } : {}) },
      1,
    );
  }
  return { series: latest.size, limits };
}

/** Checks unit counts per station, direction, result and window against `sim.unitsBetween`. */
function checkUnits(
  sim: Simulator,
  samples: Index,
  windows: readonly WindowSpec[],
  longest: Date,
  now: number,
) {
  for (const station of sim.plant.stations) {
    const times = sim
      .unitsBetween([station.id], longest, new Date(now))
      .map((r) => Date.parse(r.time_created));
    const last = times.length > 0 ? Math.max(...times) / 1000 : undefined;
    expectSample(samples, 'station_last_unit_timestamp_seconds', { station_id: station.id }, last);
  }
  for (const spec of windows) {
    const { from, to } = windowBounds(spec, new Date(now));
    const all = sim.unitsBetween(
      sim.plant.stations.map((st) => st.id),
      from,
      to,
    );
    for (const station of sim.plant.stations) {
      const recs = all.filter((r) => r.station_id === station.id);
      const labels = { station_id: station.id, window: spec.name };
      expectSample(samples, 'station_unit_serials', labels, new Set(recs.map((r) => r.unit_serial)).size);
      for (const direction of ['input', 'output']) {
        for (const result of ['pass', 'fail', 'unknown']) {
          const n = recs.filter(
            (r) => r.direction === direction && (r.result || 'unknown') === result,
          ).length;
          if (n > 0) expectSample(samples, 'station_unit_records', { ...labels, direction, result }, n);
        }
      }
    }
  }
}

describe('measurements and units end to end, fixed seed and clock', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
  });
  afterAll(() => h.close());

  it('exports latest values, limits, window statistics, out-of-spec counts and Ppk equal to the upstream records', async () => {
    const series = await checkAll(h);
    expect(series).toBeGreaterThan(50);
    const samples = await samplesOf(h);
    // Read as Prometheus reads it (an empty label is no label), no two lines are one series.
    expect(duplicateSeries(samples)).toEqual([]);
    // The plant exercises every case: one-sided and two-sided Ppk, no limits, non-numeric values.
    expect(
      samples.some((s) => s.name === 'station_measurement_window_ppk' && s.labels.metric === 'idle_current'),
    ).toBe(true);
    expect(
      samples.some(
        (s) => s.name === 'station_measurement_window_ppk' && s.labels.metric === 'insulation_resistance',
      ),
    ).toBe(true);
    expect(
      samples.some((s) => s.name === 'station_measurement_window_ppk' && s.labels.metric === 'test_time'),
    ).toBe(false);
    const passFail = samples.filter(
      (s) =>
        s.name === 'station_measurement_window_non_numeric_samples' && s.labels.metric === 'firmware_check',
    );
    expect(passFail.some((s) => s.value > 0)).toBe(true);
    expect(
      samples.some(
        (s) => s.name === 'station_measurement_window_mean' && s.labels.metric === 'firmware_check',
      ),
    ).toBe(false);
  });

  it('batches every station into one request per endpoint and half hour of the longest window, with the names filter and both directions', () => {
    const hours = Math.ceil(longestWindowMs(h.config.windows, new Date(h.now())) / DEFAULT_MAX_SPAN_MS);
    const metrics = metricRequests(h);
    expect(metrics).toHaveLength(hours);
    for (const m of metrics) {
      expect(m.query.station_ids?.[0]?.split(',')).toHaveLength(h.sim.sim.plant.stations.length);
      expect(m.query.names).toEqual(NAMES.slice(1).concat(NAMES[0] ?? ''));
      const span = Date.parse(m.query.to?.[0] ?? '') - Date.parse(m.query.from?.[0] ?? '');
      expect(span).toBeLessThanOrEqual(DEFAULT_MAX_SPAN_MS);
    }
    const units = h.sim.sim.requests.filter((r) => r.path === '/units');
    expect(units).toHaveLength(hours);
    expect(units[0]?.query.direction).toEqual(['input', 'output']);
  });

  it.skipIf(!promtoolPath() && !process.env.CI)('passes promtool check metrics', async () => {
    const result = checkMetrics(await (await h.exporter.app.request('/metrics')).text());
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  });
});

describe('incremental polls', () => {
  const open: Harness[] = [];
  const start = async (opts?: Parameters<typeof harness>[0]) => {
    const h = await harness(opts);
    open.push(h);
    return h;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });

  it('fetch only the new span (with overlap), count nothing twice and equal a fresh exporter', async () => {
    const h = await start();
    await h.exporter.scheduler.pollOnce();
    const t0 = h.now();
    const first = metricRequests(h).length;
    h.advance(2 * MIN);
    await h.exporter.scheduler.pollOnce();
    h.advance(7 * MIN);
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    // After the first poll's half-hour spans, each poll asks from the last one's end minus the overlap.
    const spans = Math.ceil(longestWindowMs(h.config.windows, new Date(t0)) / DEFAULT_MAX_SPAN_MS);
    expect(first).toBe(spans);
    const later = metricRequests(h).slice(first).map(spanOf);
    const incremental = later.filter((r) => r.to === t0 + 2 * MIN || r.to === t0 + 9 * MIN);
    expect(incremental.map((r) => r.from)).toEqual([t0 - 5 * MIN, t0 + 2 * MIN - 5 * MIN]);
    // The rest is the re-read sweep: whole half-hour spans from the oldest retained time, in order,
    // before the incremental reads begin (9 of the 60 minutes of a sweep pass 3.6 of 24 hours).
    const swept = later.filter((r) => !incremental.includes(r));
    const retained = longestWindowMs(h.config.windows, new Date(h.now()));
    expect(swept.length).toBe(Math.floor(((9 / 60) * retained) / DEFAULT_MAX_SPAN_MS));
    swept.forEach((r, i) => {
      expect(r.to - r.from).toBe(DEFAULT_MAX_SPAN_MS);
      if (i > 0) expect(r.from).toBe(swept[i - 1]!.to);
    });
    await checkAll(h);
    const fresh = await start();
    fresh.advance(9 * MIN);
    await fresh.exporter.scheduler.pollOnce();
    // The cumulative families count from each exporter's own start: they differ by design.
    const windowed = (text: string) =>
      text
        .split('\n')
        .filter(
          (l) =>
            !/^(# (HELP|TYPE) )?station_(measurement_value|units_total)(_bucket|_sum|_count)?[{ ]/.test(l),
        )
        .join('\n');
    expect(windowed(await dataExposition(h.exporter))).toBe(windowed(await dataExposition(fresh.exporter)));
  });

  it('split spans whose answer was truncated and still get every record', async () => {
    const cap = 300;
    const h = await start({ sim: { maxRecords: cap }, measurements: { max_records_per_request: cap } });
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    const requests = metricRequests(h);
    const longest = longestWindowMs(h.config.windows, new Date(h.now()));
    const spans = Math.ceil(longest / DEFAULT_MAX_SPAN_MS);
    const ids = h.sim.sim.plant.stations.map((s) => s.id);
    const truth = h.sim.sim.metricsBetween(ids, {
      from: new Date(h.now() - longest),
      to: new Date(h.now()),
      names: [...NAMES],
    }).length;
    // Answers were truncated: more requests than spans, at least one per `cap` records...
    expect(truth / spans).toBeGreaterThan(cap);
    expect(requests.length).toBeGreaterThan(Math.max(spans, truth / cap));
    // ...but parts are sized from what one answer covered, not found by halving over and over.
    expect(requests.length).toBeLessThanOrEqual(spans + 3 * Math.ceil(truth / cap));
    await checkAll(h);
  });

  it('keep serving data when a poll fails, and fetch the failed span again next time', async () => {
    const h = await start();
    await h.exporter.scheduler.pollOnce();
    const t0 = h.now();
    const kept = (list: ParsedSample[]) =>
      list
        .filter((s) => s.name === 'station_measurement_last_value' || s.name === 'station_unit_serials')
        .map(
          (s) => `${s.name}${JSON.stringify(s.labels)} ${s.name === 'station_unit_serials' ? '' : s.value}`,
        );
    const before = kept(await samplesOf(h));
    h.sim.sim.setScenario({ errorRate: 1 });
    h.advance(3 * MIN);
    expect(await h.exporter.scheduler.pollOnce()).toBe(false);
    // Nothing new could be read, so every series and latest value stays as it was.
    expect(kept(await samplesOf(h))).toEqual(before);
    h.sim.sim.setScenario({ errorRate: 0 });
    h.advance(3 * MIN);
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    // The incremental read (the span ending now) starts where the last good read ended.
    const last = metricRequests(h)
      .map(spanOf)
      .filter((r) => r.to === h.now());
    expect(last.map((r) => r.from)).toEqual([t0 - 5 * MIN]);
    await checkAll(h);
  });

  it('batch stations into several requests within max_url_length', async () => {
    const h = await start({
      sim: { scale: { sites: 2, linesPerSite: 3, stationsPerLine: 8 } },
      upstream: { max_url_length: 1024 },
    });
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    const metrics = metricRequests(h);
    expect(metrics.length).toBeGreaterThan(1);
    for (const r of metrics) expect(`${h.sim.url}${r.path}?${r.rawQuery}`.length).toBeLessThanOrEqual(1024);
    await checkAll(h);
  });

  it('drop the series of stations that leave the topology', async () => {
    const h = await start();
    await h.exporter.scheduler.pollOnce();
    const topology = h.exporter.scheduler.currentTopology();
    if (!topology) throw new Error('no topology');
    const { config, upstream } = h.exporter;
    const deps = {
      config,
      client: upstream.client,
      logger: h.exporter.logger,
      yielder: new LoopYielder(),
      redact: h.exporter.redactor.apply,
      ...standaloneDependencies(),
    };
    const jobs = [new MeasurementsJob(deps), new UnitsJob(deps)];
    // Station series only: the units' line CUSUMs carry no station.
    const stationsIn = (families: Family[]) =>
      new Set(
        families.flatMap((f) =>
          f.samples.flatMap((x) => /station_id="(\w+)"/.exec(x.labels.text)?.[1] ?? []),
        ),
      );
    const kept = topology.stations.slice(0, 2);
    for (const job of jobs) {
      const all = await job.poll({ topology, now: new Date(h.now()) });
      expect(stationsIn(all.families).size).toBeGreaterThan(2);
      h.advance(MIN);
      const fewer = await job.poll({ topology: { ...topology, stations: kept }, now: new Date(h.now()) });
      expect(fewer.failures).toBe(0);
      expect([...stationsIn(fewer.families)].sort()).toEqual(kept.map((st) => st.id).sort());
    }
  });
});
