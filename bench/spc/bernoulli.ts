/**
 * Yield and retry detection near the information limit (issue 30, item 6): the Bernoulli CUSUMs
 * of the units collector (src/spc/bernoulli.ts, the shipped defaults: ARL0 2·10^6 units, shifts of
 * 15, 15 and 10 points) against the Wilson-bound alerts they replace, on unit streams at 30 units
 * an hour per line (retry trials: 33.3 output records an hour at a 10 % retry ratio).
 *
 * Reported, all seeded (splitmix64), many replications:
 *   - each chart's exact in-control ARL and its zero-start ARL at the shift (Markov chain), the
 *     simulated in-control signal rate, and the simulated delay to a shift that starts after a
 *     random in-control run (the chart state is then whatever it was: the delay a plant sees);
 *   - the pager: chance signals a day per 1,000 stations from the charts that page (retry per
 *     station, final yield per line; 10 stations a line), from the exact ARL and simulated;
 *   - the Wilson-bound alerts as shipped before (a 1h window evaluated each minute, bound beyond
 *     the target for 15 minutes): false notifications a day per 1,000 stations and the delay.
 * Run: npm run bench:yield [-- --quick]
 */
import { loadavg } from 'node:os';
import { BernoulliCusum, type BernoulliShift, designBernoulliCusum } from '../../src/spc/bernoulli.ts';
import { bernoulliArl, detectionBoundUnits } from '../pager/information-limit.ts';
import { splitmix64 } from '../shared/random.ts';

const QUICK = process.argv.includes('--quick');
const ARL0 = 2_000_000;
const UNITS_PER_HOUR = 30;
const STATIONS_PER_LINE = 10;
const random = splitmix64(20261126);

interface Case {
  readonly name: string;
  readonly shift: BernoulliShift;
  /** The rate the chart is asked to detect, when it differs from the design's p1. */
  readonly actual?: number;
  /** Trials an hour. */
  readonly perHour: number;
}

const CASES: Case[] = [
  { name: 'final yield 0.95 -> 0.80', shift: { p0: 0.05, p1: 0.2 }, perHour: UNITS_PER_HOUR },
  { name: 'final yield 0.95 -> 0.90', shift: { p0: 0.05, p1: 0.2 }, actual: 0.1, perHour: UNITS_PER_HOUR },
  { name: 'first-pass yield 0.90 -> 0.75', shift: { p0: 0.1, p1: 0.25 }, perHour: UNITS_PER_HOUR },
  { name: 'retry ratio 0.10 -> 0.20', shift: { p0: 0.1, p1: 0.2 }, perHour: UNITS_PER_HOUR / 0.9 },
];

/** Mean delay, in trials, to a shift that starts after an in-control run of random length. */
function simulateDelay(c: Case, reps: number): { mean: number; se: number } {
  const design = designBernoulliCusum(c.shift, ARL0);
  const p1 = c.actual ?? c.shift.p1;
  let sum = 0;
  let sq = 0;
  for (let r = 0; r < reps; r++) {
    const chart = new BernoulliCusum(design);
    const warm = Math.floor(random.uniform() * 2000);
    for (let i = 0; i < warm; i++) chart.add(random.uniform() < c.shift.p0);
    let n = 1;
    while (!chart.add(random.uniform() < p1)) n++;
    sum += n;
    sq += n * n;
  }
  const mean = sum / reps;
  return { mean, se: Math.sqrt((sq / reps - mean * mean) / reps) };
}

/** Chance signals of one in-control chart over `trials` trials. */
function simulateSignals(c: Case, trials: number): number {
  const chart = new BernoulliCusum(designBernoulliCusum(c.shift, ARL0));
  for (let i = 0; i < trials; i++) chart.add(random.uniform() < c.shift.p0);
  return chart.count;
}

const Z = 2.326348;
/** One-sided 99 % Wilson bound of x bad in n: the upper one (retry) or the lower one of the good share. */
function wilson(x: number, n: number, side: 1 | -1): number {
  const p = x / n;
  const z2 = Z * Z;
  return (p + z2 / (2 * n) + side * Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/**
 * The Wilson-bound alert on one stream, one evaluation a minute over the trials of the last hour:
 * fires when the lower 99 % bound of the bad share is above p0 for 15 minutes. Returns the
 * minute of each notification (a firing after a resolve notifies again), and the first firing
 * minute at or after `shiftAt`.
 */
function wilsonRun(c: Case, opts: { minutes: number; shiftAt: number }): { fired: number[]; first?: number } {
  const perMinute = c.perHour / 60;
  const bins: Array<[number, number]> = [];
  let pending = 0;
  let firing = false;
  const fired: number[] = [];
  let first: number | undefined;
  const p1 = c.actual ?? c.shift.p1;
  for (let m = 0; m < opts.minutes; m++) {
    const p = m >= opts.shiftAt ? p1 : c.shift.p0;
    // Poisson arrivals: trials of this minute.
    let n = 0;
    let x = 0;
    const gap = () => -Math.log(1 - random.uniform()) / perMinute;
    let t = gap();
    while (t < 1) {
      n++;
      if (random.uniform() < p) x++;
      t += gap();
    }
    bins.push([n, x]);
    if (bins.length > 60) bins.shift();
    let nn = 0;
    let xx = 0;
    for (const [a, b] of bins) {
      nn += a;
      xx += b;
    }
    const above = nn > 0 && wilson(xx, nn, -1) > c.shift.p0;
    pending = above ? pending + 1 : 0;
    if (pending > 15 && !firing) {
      firing = true;
      fired.push(m);
      if (m >= opts.shiftAt && first === undefined) first = m;
    }
    if (!above) firing = false;
    if (first !== undefined && m >= opts.shiftAt) break;
  }
  return first === undefined ? { fired } : { fired, first };
}

function main(): void {
  const reps = QUICK ? 400 : 4000;
  const icTrials = QUICK ? 2_000_000 : 40_000_000;
  const wilsonDays = QUICK ? 200 : 2000;
  const started = process.cpuUsage();
  const wall = Date.now();
  console.log(`Bernoulli CUSUM, ARL0 ${ARL0} units per chart (exact chain), seed 20261126`);
  const pager: Record<string, number> = {};
  for (const c of CASES) {
    const d = designBernoulliCusum(c.shift, ARL0);
    const p1 = c.actual ?? c.shift.p1;
    const bound = detectionBoundUnits({ p0: c.shift.p0, p1, a: 1e4 });
    const arl1 = bernoulliArl(d, p1);
    const delay = simulateDelay(c, reps);
    const arl0 = bernoulliArl(d, c.shift.p0);
    console.log(
      `\n${c.name}: weights +${d.failWeight}/-${d.passWeight}, H ${d.h} (${(d.h * d.llrPerStep).toFixed(2)} nats)`,
    );
    console.log(`  in-control ARL ${arl0.toFixed(0)} trials exact`);
    console.log(`  bound ln(1e4)/KL ${bound.toFixed(1)} units, 2x ${(2 * bound).toFixed(1)}`);
    console.log(
      `  delay: zero-start ARL ${arl1.toFixed(1)} exact; after a random in-control run ${delay.mean.toFixed(1)} ± ${(1.96 * delay.se).toFixed(1)} units (${reps} reps) = ${(delay.mean / c.perHour).toFixed(2)} h`,
    );
    if (c.actual === undefined) {
      const signals = simulateSignals(c, icTrials);
      console.log(
        `  simulated in-control: ${signals} signals in ${icTrials} trials (1 in ${(icTrials / Math.max(1, signals)).toFixed(0)})`,
      );
      pager[c.name] = (c.perHour * 24) / arl0;
    }
    const w = wilsonDelay(c, QUICK ? 100 : 1000);
    console.log(
      `  Wilson 1h/15m alert delay: ${w.mean.toFixed(1)} units = ${(w.mean / c.perHour).toFixed(2)} h (${w.missed} of ${w.reps} not found in 3 days)`,
    );
    const fa = wilsonFalse(c, wilsonDays);
    console.log(`  Wilson in-control: ${fa} notifications in ${wilsonDays} stream-days`);
    pager[`wilson ${c.name}`] = fa / wilsonDays;
  }
  const perDay = (k: string) => pager[k] ?? 0;
  const retry = 'retry ratio 0.10 -> 0.20';
  const fy = 'final yield 0.95 -> 0.80';
  const cusumPager = 1000 * perDay(retry) + (1000 / STATIONS_PER_LINE) * perDay(fy);
  const wilsonPager = 1000 * perDay(`wilson ${retry}`) + (1000 / STATIONS_PER_LINE) * perDay(`wilson ${fy}`);
  console.log(
    `\nPager, chance notifications a day per 1,000 stations (retry per station, final yield per line):`,
  );
  console.log(
    `  CUSUM (exact ARL): ${cusumPager.toFixed(3)}   Wilson (simulated): ${wilsonPager.toFixed(3)}`,
  );
  const cpu = process.cpuUsage(started);
  console.log(
    `cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, wall ${((Date.now() - wall) / 1000).toFixed(1)} s, load ${loadavg()[0]!.toFixed(2)}`,
  );
}

function wilsonDelay(c: Case, reps: number): { mean: number; missed: number; reps: number } {
  let sum = 0;
  let found = 0;
  for (let r = 0; r < reps; r++) {
    const shiftAt = 120 + Math.floor(random.uniform() * 60);
    const run = wilsonRun(c, { minutes: shiftAt + 3 * 1440, shiftAt });
    if (run.first === undefined) continue;
    found++;
    sum += ((run.first - shiftAt + 1) * c.perHour) / 60;
  }
  return { mean: sum / Math.max(1, found), missed: reps - found, reps };
}

function wilsonFalse(c: Case, days: number): number {
  let n = 0;
  for (let d = 0; d < days; d += 10)
    n += wilsonRun(c, { minutes: 10 * 1440, shiftAt: Number.POSITIVE_INFINITY }).fired.length;
  return n;
}

main();
