/**
 * `npm run bench:spc`: the notification budget of the shipped control alert, measured. 1,000
 * charts (100 lines of 10 stations, one measurement each) get a point every 2 minutes from a
 * seeded splitmix64 generator; the collector's own chart code (ControlCharts: rolling 24h
 * baseline, I-MR limits, rules, CUSUM, EWMA) evaluates them poll by poll after a day of history; the
 * shipped alert's semantics (MeasurementShiftDetected: per line, firing while
 * increase(violations_total{rule="cusum"}[10m]) > 0, and for keep_firing_for 1h after) are
 * applied minute by minute, and every
 * transition of a line's alert from inactive to firing is a notification. Writes its section of
 * bench/RESULTS.md, keeping the latest runs.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { ControlCharts } from '../../src/collectors/measurements/control.ts';
import { MeasurementStore } from '../../src/collectors/measurements/store.ts';
import { configFromObject } from '../../src/config/load.ts';
import type { Family } from '../../src/exposition/model.ts';
import type { MeasurementRecord } from '../../src/upstream/types.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { readSection, SPC_BUDGET_SECTION, writeSection } from '../shared/format.ts';
import { type Random, splitmix64 } from '../shared/random.ts';
import { plant } from './control.ts';

const MIN = 60_000;
const STEP = 2 * MIN;
const DAY = 1440 * MIN;
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
const LINES = 100;
const PER_LINE = 10;
const CHARTS = LINES * PER_LINE;
/** Minutes an event keeps the line's alert firing: the alert's increase() range and keep_firing_for. */
const ALERT_RANGE_MIN = 10;
const KEEP_FIRING_MIN = 60;

/** How the points of a chart are made. */
interface Process {
  /** Lag-1 autocorrelation of the noise (AR(1), unit marginal variance). */
  readonly phi: number;
  /** From this time on: a mean shift (sigmas) and a sigma factor. */
  readonly changeAt: number;
  readonly shift: number;
  readonly sigmaFactor: number;
  /**
   * Share of points that are a failing unit's value instead: beyond a spec limit at ±3σ by 0.2 to
   * 1.7σ, either side, as the simulator makes them for an incapable characteristic (its
   * `outside()`); 0 for none.
   */
  readonly outliers?: number;
}

interface Scenario {
  readonly name: string;
  readonly limits: 'estimated' | 'known';
  /** measurements.control.compensate_autocorrelation (default true). */
  readonly compensate?: boolean;
  readonly process: Process;
  /** Evaluated after the day of history: from, to and the poll interval. */
  readonly from: number;
  readonly to: number;
  readonly pollMs: number;
}

function chartsFor(limits: 'estimated' | 'known', compensate = true) {
  const config = configFromObject(
    {
      upstream: { base_url: 'http://bench', token: 't' },
      windows: ['1h'],
      measurements: {
        enabled: true,
        names: ['x'],
        control: {
          names: limits === 'known' ? [{ name: 'x', limits: { center: 0, ucl: 3, lcl: -3 } }] : ['x'],
          baseline: { rolling: '24h' },
          compensate_autocorrelation: compensate,
        },
      },
    },
    { env: {}, baseDir: '/' },
  );
  const store = new MeasurementStore();
  const charts = new ControlCharts(
    { config, logger: pino({ level: 'silent' }), yielder: new LoopYielder() },
    store,
  );
  return { charts, store };
}

/** CUSUM events per station id, from the control families. */
function cusumEvents(families: readonly Family[]): Map<string, number> {
  const out = new Map<string, number>();
  const family = families.find((f) => f.desc.name === 'station_measurement_control_violations_total');
  for (const s of family?.samples ?? []) {
    const text = s.labels.text;
    if (!text.includes('rule="cusum"')) continue;
    const id = /station_id="([^"]+)"/.exec(text)?.[1];
    if (id) out.set(id, s.value);
  }
  return out;
}

/** A failing unit's value (see {@link Process.outliers}) with probability `share`, else undefined. */
function outlier(rng: Random | undefined, share = 0): number | undefined {
  if (share === 0 || rng === undefined || rng.uniform() >= share) return undefined;
  const beyond = 3 + 0.2 + 1.5 * rng.uniform();
  return rng.uniform() < 0.5 ? beyond : -beyond;
}

interface ScenarioResult {
  readonly name: string;
  /** Notifications a day per 1,000 charts (lines' alerts going from inactive to firing). */
  readonly notificationsPerDay: number;
  /** Per chart: points from the change to its first CUSUM event (undefined: none by the end). */
  readonly delays: Array<number | undefined>;
  /** Median wall time of the charts' computation per poll. */
  readonly msPerPoll: number;
  /** Median CPU time (this process, user + system) of the same: less disturbed by a busy machine. */
  readonly cpuMsPerPoll: number;
}

async function run(s: Scenario, seed: number): Promise<ScenarioResult> {
  const topology = plant(CHARTS);
  const { charts, store } = chartsFor(s.limits, s.compensate);
  const stations = topology.stations;
  const rng = stations.map((_, i) => splitmix64(BigInt(seed) * 1_000_003n + BigInt(i)));
  const noise = new Float64Array(stations.length);
  const innovation = Math.sqrt(1 - s.process.phi ** 2);
  let nextPoint = s.from - DAY - 2 * 60 * MIN;
  const add = (until: number) => {
    const batch: MeasurementRecord[] = [];
    for (; nextPoint <= until; nextPoint += STEP) {
      const changed = nextPoint >= s.process.changeAt;
      stations.forEach((st, i) => {
        noise[i] = s.process.phi * (noise[i] ?? 0) + innovation * (rng[i]?.normal() ?? 0);
        const value =
          outlier(rng[i], s.process.outliers) ??
          (noise[i] ?? 0) * (changed ? s.process.sigmaFactor : 1) + (changed ? s.process.shift : 0);
        batch.push({
          stationId: st.id,
          slot: null,
          serial: `U${nextPoint}`,
          time: nextPoint,
          name: 'x',
          raw: '',
          value,
          unit: '',
          type: 'float',
          upper: undefined,
          lower: undefined,
          mode: null,
        });
      });
    }
    store.add(batch);
  };
  /** Wall time of the charts' computation alone (what the collector adds to a poll), per poll. */
  let chartMs: number[] = [];
  let cpuMs: number[] = [];
  const poll = async (now: number) => {
    add(now);
    const from = charts.retainFrom(now, now - 60 * MIN);
    charts.store.evictBefore(from);
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const families = await charts.families(topology, { nowMs: now, complete: true });
    chartMs.push(performance.now() - started);
    const cpu = process.cpuUsage(cpu0);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    return cusumEvents(families);
  };
  // The first poll replays the day of history: its events are context, never counted.
  let last = await poll(s.from);
  const lineOf = new Map(stations.map((st, i) => [st.id, Math.floor(i / PER_LINE)]));
  const delays: Array<number | undefined> = stations.map(() => undefined);
  /** Per line, the minute until which its alert fires. */
  const firingUntil = new Float64Array(LINES).fill(Number.NEGATIVE_INFINITY);
  let notifications = 0;
  chartMs = [];
  cpuMs = [];
  for (let now = s.from + s.pollMs; now <= s.to; now += s.pollMs) {
    const events = await poll(now);
    stations.forEach((st, i) => {
      const rose = (events.get(st.id) ?? 0) - (last.get(st.id) ?? 0);
      if (rose <= 0) return;
      // The counter rises at this poll: the line's alert fires from now for the increase() range,
      // a notification unless it was firing already.
      const line = lineOf.get(st.id) ?? 0;
      if ((firingUntil[line] ?? 0) < now) notifications++;
      firingUntil[line] = now + (ALERT_RANGE_MIN + KEEP_FIRING_MIN) * MIN;
      if (delays[i] === undefined && now >= s.process.changeAt)
        delays[i] = Math.floor((now - s.process.changeAt) / STEP) + 1;
    });
    last = events;
  }
  const days = (s.to - s.from) / DAY;
  return {
    name: s.name,
    notificationsPerDay: ((notifications / days) * 1000) / CHARTS,
    delays,
    // The median: a collection the bench's own record making triggers lands in a few polls.
    msPerPoll: median(chartMs),
    cpuMsPerPoll: median(cpuMs),
  };
}

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function delayText(r: ScenarioResult): { mean: number; text: string } {
  const found = r.delays.filter((d): d is number => d !== undefined);
  const m = mean(found);
  const missed = r.delays.length - found.length;
  return {
    mean: found.length === 0 ? Number.POSITIVE_INFINITY : m,
    text: `${m.toFixed(1)} points${missed > 0 ? ` (${missed} of ${r.delays.length} charts not yet by the end)` : ''}`,
  };
}

async function main() {
  const args = process.argv.slice(2);
  const days = Number(args.find((a) => a.startsWith('--days='))?.slice(7) ?? 7);
  const seed = Number(args.find((a) => a.startsWith('--seed='))?.slice(7) ?? Date.now() % 1_000_000);
  const started = Date.now();
  const week = (name: string, limits: 'estimated' | 'known', phi: number, outliers = 0): Scenario => ({
    name,
    limits,
    process: { phi, changeAt: Number.POSITIVE_INFINITY, shift: 0, sigmaFactor: 1, outliers },
    from: T0 + DAY,
    to: T0 + DAY + days * DAY,
    pollMs: 10 * MIN,
  });
  // Shifts start two hours into steady operation, polled every point; followed for 12 hours.
  const shift = (name: string, limits: 'estimated' | 'known', size: number, sigmaFactor = 1): Scenario => ({
    name,
    limits,
    process: { phi: 0, changeAt: T0 + DAY + 120 * MIN + STEP / 2, shift: size, sigmaFactor },
    from: T0 + DAY,
    to: T0 + DAY + 120 * MIN + 12 * 60 * MIN,
    pollMs: STEP,
  });
  const rows: string[] = [];
  const verdict = (ok: boolean) => (ok ? 'pass' : '**FAIL**');
  const inControl = await run(week('in control, estimated limits', 'estimated', 0), seed);
  rows.push(
    `| Chance notifications a day per 1,000 in-control charts (rolling 24h baseline, ${days} days) | ${inControl.notificationsPerDay.toFixed(1)} | ≤ 10 | ${verdict(inControl.notificationsPerDay <= 10)} |`,
  );
  const known = await run(week('in control, known limits', 'known', 0), seed + 1);
  rows.push(
    `| The same with limits given in config (reported) | ${known.notificationsPerDay.toFixed(1)} |  |  |`,
  );
  const ar = await run(week('AR(1) phi 0.2, estimated limits', 'estimated', 0.2), seed + 2);
  rows.push(
    `| The same on AR(1) data, lag-1 correlation 0.2, compensated (the default; reported) | ${ar.notificationsPerDay.toFixed(1)} |  |  |`,
  );
  const raw = await run(
    { ...week('AR(1) phi 0.2, not compensated', 'estimated', 0.2), compensate: false },
    seed + 3,
  );
  rows.push(
    `| The same AR(1) data with compensate_autocorrelation: false (reported) | ${raw.notificationsPerDay.toFixed(1)} |  |  |`,
  );
  const wild = await run(week('in control, 3 % failing units', 'estimated', 0, 0.03), seed + 4);
  rows.push(
    `| The same with 3 % of the points a failing unit's value, 3.2 to 4.7 σ out on either side, as the simulator makes them for an incapable characteristic (reported) | ${wild.notificationsPerDay.toFixed(1)} |  |  |`,
  );
  // Issue 30's delays to the first notification, 60 minutes at 1 σ and 20 at 2 σ, in points of
  // 2 minutes less about 2 minutes of poll, scrape, rule evaluation and group_wait. Issue 21's
  // 25 / 12 / 5 points at 1 / 1.5 / 3 σ cannot hold beside issue 30's chance rate (about one
  // a day per 1,000 charts): no detector with that rate averages under about 27 points at 1 σ
  // (docs/measurements.md, what no detector can beat).
  const targets: Array<[number, number | undefined]> = [
    [0.5, undefined],
    [1, 29],
    [1.5, undefined],
    [2, 9],
    [3, undefined],
  ];
  for (const [size, target] of targets) {
    const r = await run(shift(`shift ${size}`, 'estimated', size), seed + 10 + size * 10);
    const d = delayText(r);
    rows.push(
      `| Points from a sustained ${size} σ shift to the first notification (mean of 1,000 charts) | ${d.text} | ${target === undefined ? '' : `≤ ${target}`} | ${target === undefined ? '' : verdict(d.mean <= target)} |`,
    );
  }
  const spread = await run(shift('sigma x1.5', 'estimated', 0, 1.5), seed + 40);
  rows.push(
    `| Points from a step of sigma to 1.5× to the first notification (reported) | ${delayText(spread).text} |  |  |`,
  );
  const cost = inControl.msPerPoll;
  rows.push(
    `| Control charts per poll, 1,000 charts (5 new points each; median of the in-control week's polls; wall, then CPU time) | ${cost.toFixed(1)} ms (CPU ${inControl.cpuMsPerPoll.toFixed(1)} ms, load average ${os.loadavg()[0]?.toFixed(1)}) | ≤ 25 ms | ${verdict(cost <= 25)} |`,
  );
  const section = [
    START,
    '## Control-chart notification budget',
    '',
    `Run ${new Date().toISOString()} (seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s, Node ${process.version}): ` +
      '`npm run bench:spc` (bench/spc/spc-budget.ts). 1,000 charts on 100 lines, a point every 2 minutes from splitmix64 ' +
      'normals, evaluated by the collector’s own chart code (rolling 24h baseline, CUSUM k 0.625 h 10, values capped at ±2.5σ, ' +
      'with fast initial response, limits held 1h after a signal); the shipped MeasurementShiftDetected alert’s semantics applied per line ' +
      '(firing for 10 minutes after each CUSUM event, kept firing 1h more): a notification is a line’s alert going from ' +
      'inactive to firing.',
    '',
    '| Measure | Measured | Target | |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
  const file = new URL('../RESULTS.md', import.meta.url);
  // Keeps the previous runs below the newest, so that three in a row can be read off.
  const previous = readSection(file, START, END)?.split(RUN_SEPARATOR) ?? [];
  const kept = previous
    .slice(0, 2)
    .map((p) => p.replace('## Control-chart notification budget\n', '').trim());
  const body = [section.slice(0, -END.length).trimEnd(), ...kept.map((k) => `${RUN_SEPARATOR}\n${k}`)].join(
    '\n\n',
  );
  writeSection(file, `${body}\n${END}`, START, END);
  process.stdout.write(`${section}\n`);
}

const { start: START, end: END } = SPC_BUDGET_SECTION;
const RUN_SEPARATOR = '<!-- earlier run -->';

await main();
