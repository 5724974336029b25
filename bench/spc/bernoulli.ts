/**
 * `npm run bench:yield`: the yield and retry CUSUMs of the units collector as shipped
 * (src/spc/bernoulli.ts OwnLevelCusum with the defaults of `units.cusum`: ARL0 2·10^6 trials, p0
 * the chart's own level over 7 days with the last 3 days left out and 500 trials of prior at its
 * target, the shift an odds ratio of it: 4.75 for final yield, 2.25 for the retry ratio).
 *
 * Each trial is one unit (final yield) or one output record (retry ratio) at 30 units an hour
 * (33.3 records an hour at a 10 % retry ratio): the delays are counted in the trials the chart
 * sees. Seeded (splitmix64), one run per seed; the value of a row is the median of the runs.
 *   - Delay to a drop of the final yield by 2, 5, 10 and 15 points from the line's own level, for a
 *     line at 0.95 with a target of 0.95, a line at 0.95 with a target of 0.97 (a standing
 *     shortfall) and a line at 0.99 with a target of 0.95; and to a retry ratio ×1.5, ×2, ×3 from
 *     0.10 (target 0.10) and from 0.05 (target 0.10). Each chart first runs 10 days in control, so
 *     its own level is estimated as in a plant, then the shift starts at a random minute; the
 *     delay is the trials from the shift to the signal. Beside it: the information limit
 *     ln(ARL0)/KL(p1‖p0) at the chart's own ARL0, Lorden's first-order term (asymptotic, not a
 *     floor), and the exact zero-start ARL of the design at the true level (Markov chain).
 *   - In control: chance signals a day per 1,000 charts for lines at their target ± 1 point and
 *     stations at 0.09/0.10/0.11 retry ratio against 0.10, and for a line whose two products, run
 *     in lots of 60–240 units, yield 0.94 and 0.96. An ARL0 of 2·10^6 cannot be simulated at this
 *     size, so each replication simulates the chart's 10 days of history (its estimated level and
 *     the design it picks) and takes the exact in-control ARL of that design at the true rate:
 *     the chance rate with the estimation error included (the lots case is simulated outright).
 *     The target-based chart shipped before (p0 = the target) is shown beside.
 *   - The below-target tickets: the 24h one-sided 99.9 % Wilson bound evaluated each minute,
 *     `for: 12h`, `keep_firing_for: 3d`, on lines at target ± 1 point and a line 5 points below:
 *     tickets a day per 1,000 lines.
 *
 * Run: npm run bench:yield [-- --seeds=1,2,3 --quick]
 */
import {
  ArlChain,
  type BernoulliDesign,
  designBernoulliCusum,
  OwnLevelCusum,
  onLogitGrid,
  shiftByOddsRatio,
} from '../../src/spc/bernoulli.ts';
import { bernoulliKl } from '../pager/information-limit.ts';
import { arg } from '../shared/args.ts';
import { type Random, splitmix64 } from '../shared/random.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';
import type { Curve } from '../shared/svg.ts';

const QUICK = process.argv.includes('--quick');
const ARL0 = 2_000_000;
const HOUR = 3_600_000;
const UNITS_PER_HOUR = 30;
const RATIO = { finalYield: 4.75, retry: 2.25 };
const BASELINE = { binMs: HOUR, bins: 168, lagBins: 72 };
const PRIOR = 500;
const WARM_HOURS = 10 * 24;
/** A chart that has not signalled after this many trials is counted as a miss. */
const MAX_TRIALS = 40_000;

const designs = new Map<string, BernoulliDesign | undefined>();
function designOf(p0: number, ratio: number): BernoulliDesign | undefined {
  const p = onLogitGrid(Math.min(0.999, Math.max(0.001, p0)));
  const key = `${p}/${ratio}`;
  if (!designs.has(key)) {
    const { p1 } = shiftByOddsRatio(p, ratio);
    designs.set(key, designBernoulliCusum({ p0: p, p1: Math.min(0.999, p1) }, ARL0));
  }
  return designs.get(key);
}

function chartOf(target: number, ratio: number): OwnLevelCusum {
  const chart = new OwnLevelCusum({ baseline: BASELINE, prior: PRIOR, designOf: (p) => designOf(p, ratio) });
  chart.use(target);
  return chart;
}

/** One stream of trials: a bad-trial rate, a pace, and its chart's target and odds ratio. */
interface Stream {
  readonly p0: number;
  readonly target: number;
  readonly ratio: number;
  readonly perHour: number;
}

/** Feeds `hours` of in-control trials (evenly spaced) from `t0`; returns the time reached. */
function warm(chart: OwnLevelCusum, s: Stream, random: Random, hours: number, t0 = 0): number {
  const n = Math.round(hours * s.perHour);
  const step = HOUR / s.perHour;
  for (let i = 0; i < n; i++) chart.add({ time: t0 + i * step, bad: random.uniform() < s.p0 });
  return t0 + n * step;
}

/** Trials from a shift to rate `p1` (after 10 days in control and a random part of an hour) to the signal. */
function delayOnce(s: Stream, p1: number, random: Random): number | undefined {
  const chart = chartOf(s.target, s.ratio);
  let t = warm(chart, s, random, WARM_HOURS + random.uniform());
  const step = HOUR / s.perHour;
  for (let n = 1; n <= MAX_TRIALS; n++) {
    if (chart.add({ time: t, bad: random.uniform() < p1 })) return n;
    t += step;
  }
  return undefined;
}

/**
 * Delays of `reps` replications: the mean over all (a chart not signalled within MAX_TRIALS counts
 * as MAX_TRIALS, so the mean is a lower bound when some are missed) and the share found within a
 * week of trials.
 */
function delays(s: Stream, p1: number, random: Random, reps: number): { mean: number; week: number } {
  let sum = 0;
  let inWeek = 0;
  const week = 7 * 24 * s.perHour;
  for (let r = 0; r < reps; r++) {
    const d = delayOnce(s, p1, random) ?? MAX_TRIALS;
    sum += d;
    if (d <= week) inWeek++;
  }
  return { mean: sum / reps, week: inWeek / reps };
}

/** Expected chance signals a day of one chart: 10 days of history simulated, then its exact ARL. */
function chanceRate(s: Stream, random: Random, reps: number): { ownLevel: number; target: number } {
  let rate = 0;
  for (let r = 0; r < reps; r++) {
    const chart = chartOf(s.target, s.ratio);
    warm(chart, s, random, WARM_HOURS);
    const d = chart.design;
    if (d) rate += 1 / new ArlChain(d.failWeight, d.passWeight, s.p0).arl(d.h);
  }
  const t = designOf(s.target, s.ratio)!;
  const targetRate = 1 / new ArlChain(t.failWeight, t.passWeight, s.p0).arl(t.h);
  const perDay = s.perHour * 24;
  return { ownLevel: (rate / reps) * perDay, target: targetRate * perDay };
}

/** A line whose products run in lots (60–240 units) at bad rates `rates` in turn, simulated outright. */
function lotsSignals(rates: readonly number[], target: number, random: Random, days: number): number {
  const s: Stream = {
    p0: (rates[0]! + rates[1]!) / 2,
    target,
    ratio: RATIO.finalYield,
    perHour: UNITS_PER_HOUR,
  };
  const chart = chartOf(target, s.ratio);
  const step = HOUR / s.perHour;
  let signals = 0;
  let product = 0;
  let left = 0;
  const total = Math.round(days * 24 * s.perHour);
  const warmTrials = WARM_HOURS * s.perHour;
  for (let i = 0; i < total + warmTrials; i++) {
    if (left === 0) {
      product = random.uniform() < 0.5 ? 0 : 1;
      left = 60 + Math.floor(180 * random.uniform());
    }
    left--;
    if (chart.add({ time: i * step, bad: random.uniform() < rates[product]! }) && i >= warmTrials) signals++;
  }
  return signals;
}

const Z = 3.090232;
/** One-sided 99.9 % Wilson upper bound of the good share: x good of n. */
function wilsonUpper(x: number, n: number): number {
  const p = x / n;
  const z2 = Z * Z;
  return (p + z2 / (2 * n) + Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/**
 * Tickets of StationLineFinalYieldBelowTarget on a line yielding `y` against `target` over `days`
 * (after a first day that fills the window): Poisson arrivals at 30 an hour, the 24h counts
 * evaluated every minute, `for: 1h`, `keep_firing_for: 1d`. A ticket is a firing that starts.
 */
export function tickets(
  y: number,
  target: number,
  random: Random,
  opts: { readonly days: number; readonly forMin: number; readonly keepMin: number },
): number {
  const { days, forMin, keepMin } = opts;
  const minutes = (days + 1) * 1440;
  const n = new Int32Array(minutes);
  const good = new Int32Array(minutes);
  const perMinute = UNITS_PER_HOUR / 60;
  for (let m = 0; m < minutes; m++) {
    let t = -Math.log(1 - random.uniform()) / perMinute;
    while (t < 1) {
      n[m]!++;
      if (random.uniform() < y) good[m]!++;
      t += -Math.log(1 - random.uniform()) / perMinute;
    }
  }
  let sn = 0;
  let sg = 0;
  let pending = 0;
  let lastTrue = Number.NEGATIVE_INFINITY;
  let firing = false;
  let count = 0;
  for (let m = 0; m < minutes; m++) {
    sn += n[m]!;
    sg += good[m]!;
    if (m >= 1440) {
      sn -= n[m - 1440]!;
      sg -= good[m - 1440]!;
    }
    if (m < 1440) continue;
    const below = sn > 0 && wilsonUpper(sg, sn) < target;
    pending = below ? pending + 1 : 0;
    if (pending > forMin) lastTrue = m;
    const nowFiring = m - lastTrue <= keepMin;
    if (nowFiring && !firing) count++;
    firing = nowFiring;
  }
  return count;
}

interface Measured {
  readonly rows: ResultRow[];
  readonly curves: Curve[];
}

const YIELD_LINES = [
  { name: 'line at 0.95, target 0.95', own: 0.95, target: 0.95 },
  { name: 'line at 0.95, target 0.97', own: 0.95, target: 0.97 },
  { name: 'line at 0.99, target 0.95', own: 0.99, target: 0.95 },
];
const DROPS = [0.02, 0.05, 0.1, 0.15];
const RETRY_STATIONS = [
  { name: 'station at 0.10, target 0.10', own: 0.1, target: 0.1 },
  { name: 'station at 0.05, target 0.10', own: 0.05, target: 0.1 },
];
const RETRY_FACTORS = [1.5, 2, 3];

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/** Information limit ln(ARL0)/KL in trials. */
const limit = (p0: number, p1: number) => Math.log(ARL0) / bernoulliKl(p1, p0);

/** Exact zero-start ARL of the design chosen at the true level `p0`, at rate `p1`. */
function zeroStart(p0: number, p1: number, ratio: number): number {
  const d = designOf(p0, ratio)!;
  return new ArlChain(d.failWeight, d.passWeight, p1).arl(d.h);
}

function run(seeds: readonly number[]): Measured {
  const reps = QUICK ? 40 : 200;
  const icReps = QUICK ? 20 : 100;
  const rows: ResultRow[] = [];
  const runsOf = (f: (random: Random) => number) => seeds.map((seed) => f(splitmix64(seed)));
  const row = (measure: string, unit: string, runs: number[], extra: Partial<ResultRow> = {}): number => {
    const value = median(runs);
    rows.push({ measure, value, unit, runs, ...extra });
    return value;
  };
  const yieldSeries: Curve['series'][number][] = [];
  for (const line of YIELD_LINES) {
    const s: Stream = {
      p0: 1 - line.own,
      target: 1 - line.target,
      ratio: RATIO.finalYield,
      perHour: UNITS_PER_HOUR,
    };
    const points: [number, number][] = [];
    const bounds: [number, number][] = [];
    for (const drop of DROPS) {
      const p1 = s.p0 + drop;
      const info = limit(s.p0, p1);
      const weeks: number[] = [];
      const runs = runsOf((random) => {
        const d = delays(s, p1, random, reps);
        weeks.push(d.week);
        return d.mean;
      });
      const headline = line.own === 0.95 && line.target === 0.95 && drop === 0.15;
      const v = row(
        `Final yield ${line.own} → ${(line.own - drop).toFixed(2)} (${line.name}), delay`,
        'units',
        runs,
        {
          detail:
            `information limit ${info.toFixed(0)} units, ratio ${(median(runs) / info).toFixed(2)}; ` +
            `zero-start ARL of the design at the true level ${zeroStart(s.p0, p1, s.ratio).toFixed(0)} (exact); ` +
            `${(median(runs) / UNITS_PER_HOUR).toFixed(1)} h at 30 units/h; found within a week: ${pct(median(weeks))}`,
        },
      );
      if (headline)
        row(
          'Final yield 0.95 → 0.80 from its own level: delay / information limit',
          'ratio',
          runs.map((r) => r / info),
          {
            target: { op: '<=', bound: 2 },
            detail: `delay ${v.toFixed(0)} units, limit ln(2·10^6)/KL = ${info.toFixed(0)} units`,
          },
        );
      points.push([drop * 100, v]);
      bounds.push([drop * 100, info]);
    }
    yieldSeries.push({ name: line.name, points });
    if (line === YIELD_LINES[0])
      yieldSeries.push({ name: 'info limit, line at 0.95', points: bounds, dashed: true });
    if (line === YIELD_LINES[2])
      yieldSeries.push({ name: 'info limit, line at 0.99', points: bounds, dashed: true });
  }
  const retrySeries: Curve['series'][number][] = [];
  for (const st of RETRY_STATIONS) {
    const s: Stream = {
      p0: st.own,
      target: st.target,
      ratio: RATIO.retry,
      perHour: UNITS_PER_HOUR / (1 - st.own),
    };
    const points: [number, number][] = [];
    const bounds: [number, number][] = [];
    for (const f of RETRY_FACTORS) {
      const p1 = s.p0 * f;
      const info = limit(s.p0, p1);
      const weeks: number[] = [];
      const runs = runsOf((random) => {
        const d = delays(s, p1, random, reps);
        weeks.push(d.week);
        return d.mean;
      });
      const v = row(`Retry ratio ${st.own} ×${f} (${st.name}), delay`, 'output records', runs, {
        detail:
          `information limit ${info.toFixed(0)} records, ratio ${(median(runs) / info).toFixed(2)}; ` +
          `zero-start ARL at the true level ${zeroStart(s.p0, p1, s.ratio).toFixed(0)} (exact); ` +
          `${(median(runs) / s.perHour).toFixed(1)} h; found within a week: ${pct(median(weeks))}`,
      });
      if (st.own === 0.1 && f === 2)
        row(
          'Retry ratio doubling 0.10 → 0.20 from its own level: delay / information limit',
          'ratio',
          runs.map((r) => r / info),
          {
            target: { op: '<=', bound: 2 },
            detail: `delay ${v.toFixed(0)} records, limit ${info.toFixed(0)} records`,
          },
        );
      points.push([f, v]);
      bounds.push([f, info]);
    }
    retrySeries.push(
      { name: st.name, points },
      { name: `info limit, ${st.own}`, points: bounds, dashed: true },
    );
  }
  const chancePoints: [number, number][][] = [[], [], [], []];
  // Charts at their target and a point either side: final yield (a line better than its target
  // sits above it) and retry ratio (a station better than its target sits below it).
  const atTarget = [
    {
      what: 'final yield',
      target: 0.95,
      stream: (own: number): Stream => ({
        p0: 1 - own,
        target: 0.05,
        ratio: RATIO.finalYield,
        perHour: UNITS_PER_HOUR,
      }),
      better: 1,
    },
    {
      what: 'retry ratio',
      target: 0.1,
      stream: (own: number): Stream => ({
        p0: own,
        target: 0.1,
        ratio: RATIO.retry,
        perHour: UNITS_PER_HOUR / (1 - own),
      }),
      better: -1,
    },
  ];
  for (const [k, c] of atTarget.entries()) {
    for (const offset of [-0.01, 0, 0.01]) {
      const own = c.target + offset;
      let before = 0;
      const runs = runsOf((random) => {
        const r = chanceRate(c.stream(own), random, icReps);
        before = r.target;
        return r.ownLevel * 1000;
      });
      row(
        `Chance signals, ${c.what} ${own.toFixed(2)} against a target of ${c.target.toFixed(2)}`,
        'per day per 1,000 charts',
        runs,
        {
          target: { op: '<=', bound: 5 },
          detail: `target-based chart shipped before: ${(before * 1000).toFixed(1)}`,
        },
      );
      chancePoints[2 * k]!.push([c.better * offset * 100, median(runs)]);
      chancePoints[2 * k + 1]!.push([c.better * offset * 100, before * 1000]);
    }
  }
  const lotDays = QUICK ? 200 : 2000;
  const lotRuns = runsOf((random) => (lotsSignals([0.06, 0.04], 0.05, random, lotDays) / lotDays) * 1000);
  row(
    'Chance signals, final yield: two products in lots (0.94 and 0.96), target 0.95',
    'per day per 1,000 charts',
    lotRuns,
    {
      target: { op: '<=', bound: 5 },
      detail: `simulated outright, ${lotDays} line-days a seed`,
    },
  );
  const ticketDays = QUICK ? 100 : 1000;
  for (const y of [0.94, 0.95, 0.96, 0.9]) {
    const runs = runsOf(
      (random) =>
        (tickets(y, 0.95, random, { days: ticketDays, forMin: 720, keepMin: 3 * 1440 }) / ticketDays) * 1000,
    );
    row(`Below-target tickets, line at ${y} against 0.95`, 'per day per 1,000 lines', runs, {
      detail: `${ticketDays} line-days a seed${y === 0.9 ? ' (a true shortfall: one ticket a line, then firing)' : ''}`,
    });
  }
  const curves: Curve[] = [
    {
      id: 'final-yield-delay',
      title: 'Final yield drop: delay in units vs drop from the own level',
      x: { label: 'drop of final yield (points)' },
      y: { label: 'units to signal', scale: 'log' },
      series: yieldSeries,
    },
    {
      id: 'retry-delay',
      title: 'Retry ratio rise: delay in output records vs factor',
      x: { label: 'retry ratio × factor' },
      y: { label: 'output records to signal', scale: 'log' },
      series: retrySeries,
    },
    {
      id: 'chance',
      title: 'Chance signals a day per 1,000 charts vs level against target',
      x: { label: 'points better than target (yield up, retry down)' },
      y: { label: 'signals a day per 1,000 charts', scale: 'log' },
      series: [
        { name: 'final yield, own level', points: chancePoints[0]! },
        { name: 'final yield, target (before)', points: chancePoints[1]!, dashed: true },
        { name: 'retry, own level', points: chancePoints[2]! },
        { name: 'retry, target (before)', points: chancePoints[3]!, dashed: true },
      ],
    },
  ];
  return { rows, curves };
}

function main(): void {
  const startedAt = Date.now();
  const seeds = arg('seeds', '1,2,3').split(',').map(Number);
  const { rows, curves } = run(seeds);
  const file = writeResults(
    {
      name: 'yield',
      title: 'Yield and retry CUSUMs against their own level',
      command: `npm run bench:yield -- --seeds=${seeds.join(',')}${QUICK ? ' --quick' : ''}`,
      setup:
        `Bernoulli streams at 30 units an hour (retry: output records at 30/(1 - ratio) an hour), the exporter's OwnLevelCusum ` +
        `with its defaults (ARL0 2·10^6, 7-day baseline, 3-day lag, prior 500 trials, odds ratios 4.75 and 2.25), ` +
        `10 days in control before each shift; seeds ${seeds.join(', ')}.`,
      rows,
      curves,
      notes: [
        'Delays are in the trials the chart sees: units for yield, output records for retries; the mean over replications, shifts starting after 10 days in control. A chart that has not signalled after 40,000 trials counts as 40,000 (the mean is then a lower bound); the share found within a week says how often that happens.',
        "Information limit: ln(ARL0)/KL(p1‖p0) at the chart's own ARL0 of 2·10^6 trials, Lorden's first-order term as ARL0 grows; an asymptotic value, not a floor at finite ARL0.",
        'Chance signals: each replication simulates 10 days of a chart\'s history and takes the exact in-control ARL (Markov chain) of the design its estimated level picks, at the true rate; "target-based chart shipped before" is the exact rate of the chart designed at the target.',
        'Tickets: StationLineFinalYieldBelowTarget simulated minute by minute (24h window, one-sided 99.9 % Wilson bound, for 12h, keep_firing_for 3d).',
      ],
    },
    { startedAt },
  );
  for (const r of file.rows)
    console.log(`${r.measure}: ${r.value?.toFixed(2)} ${r.unit}${r.detail ? ` (${r.detail})` : ''}`);
  console.log(`pass: ${file.pass}, ${file.seconds} s`);
}

if (process.argv[1]?.endsWith('bernoulli.ts')) main();
