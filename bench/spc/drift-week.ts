/**
 * A slow drift against frozen approved limits and against a rolling 7-day baseline. One chart
 * gets a point every 2 minutes: a week of healthy data (the Phase I study period), a day of
 * healthy data after it, then a drift of the mean that grows linearly to 1 sigma over a week and
 * stays there. The same series feeds two {@link ControlChart}s with the shipped settings (config
 * defaults): one at the limits `limits study` computes for the study week, charted as the
 * exporter charts an approved entry (given centre, sigma and limits, the detectors calibrated on
 * the shape the study measured), and one on a rolling 7-day baseline. Each is polled every 10 minutes; the
 * delay is from the drift's start to the first CUSUM signal (the shipped shift alert's detector),
 * and the EWMA's beside it. Noise: the textbook case (independent normal) and realistic shapes of
 * the realistic plant (src/simulator/realistic.ts: skewed, autocorrelated), drawn with
 * splitmix64. Three seeds per case; the median is the figure.
 *
 *   npm run bench:drift-week [-- --seeds=3 --horizon-days=21]
 */
import { controlSchema } from '../../src/config/control-schema.ts';
import { Ar1, REALISTIC_BEHAVIOUR, type Shape, standardDraw } from '../../src/simulator/index.ts';
import { type ChartSpec, ControlChart, CUSUM_EVENT, EWMA_EVENT } from '../../src/spc/index.ts';
import { studyChart } from '../../src/spc/study.ts';
import { arg } from '../shared/args.ts';
import { splitmix64 } from '../shared/random.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const POINT_MS = 2 * MIN;
const POLL_MS = 10 * MIN;
/** The study week is [0, WEEK); the drift starts a day after it. */
const DRIFT_FROM = WEEK + DAY;
const SEEDS = Number(arg('seeds', '3'));
/** How long after the drift's start a chart is watched; no signal by then counts as this long. */
const HORIZON_MS = Number(arg('horizon-days', '21')) * DAY;

/** The shipped control settings: the config's defaults. */
const SHIPPED = controlSchema.parse({});

interface NoiseCase {
  readonly label: string;
  readonly shape: Shape;
  readonly phi: number;
}

const CASES: readonly NoiseCase[] = [
  { label: 'textbook: independent normal', shape: { kind: 'normal' }, phi: 0 },
  ...['vcc_3v3', 'idle_current', 'board_temp', 'insulation_resistance'].map((name) => {
    const b = REALISTIC_BEHAVIOUR[name]!;
    return { label: `realistic ${name}`, shape: b.shape, phi: b.phi };
  }),
];

function chartOf(baseline: ChartSpec['baseline']): ControlChart {
  return new ControlChart({
    spec: {
      baseline,
      minSamples: 25,
      evaluationWindowMs: SHIPPED.evaluationWindowMs,
      rules: SHIPPED.rules,
      compensate: SHIPPED.compensate,
    },
    detectors: { cusum: SHIPPED.cusum, ewma: SHIPPED.ewma },
    holdMs: SHIPPED.holdMs,
    overlapMs: 0,
  });
}

/** The mean at `t`, in sigmas: 0 until the drift, then up by 1 sigma a week, then 1. */
const driftAt = (t: number) => Math.min(1, Math.max(0, (t - DRIFT_FROM) / WEEK));

/** First signal time at or after the drift's start, per detector; NaN when none by the horizon. */
interface Found {
  cusum: number;
  ewma: number;
  /** CUSUM and EWMA signals on the healthy day before the drift. */
  healthy: number;
}

/**
 * The limits `limits study` writes for the study week, charted as the exporter charts an
 * approved entry: given centre, sigma and limits, frozen, and the shape the study measured
 * (src/collectors/measurements/control.ts).
 */
function approvedChart(times: Float64Array, values: Float64Array): ControlChart {
  const week = times.findIndex((t) => t >= WEEK);
  const study = studyChart(
    { times: times.subarray(0, week), values: values.subarray(0, week) },
    {
      settings: {
        rules: SHIPPED.rules,
        detectors: { cusum: SHIPPED.cusum, ewma: SHIPPED.ewma },
        compensate: SHIPPED.compensate,
        minSamples: 25,
      },
      excluded: [],
      period: { fromMs: 0, toMs: WEEK },
    },
  );
  if (!study.result.ok) throw new Error(`no limits from the study week: ${study.result.reason}`);
  const { center, sigma, ucl, lcl, calibration: c } = study.result.limits;
  if (c === undefined) return chartOf({ kind: 'given', center, sigma, ucl, lcl });
  const shape = { sigma: c.sigma, phi: c.phi, skewness: c.skewness, excessKurtosis: c.excessKurtosis ?? 0 };
  return chartOf({ kind: 'given', center, sigma, ucl, lcl, shape });
}

/** Runs one seed of one noise case; delays in hours from the drift's start. */
function runOnce(c: NoiseCase, seed: number) {
  const rng = splitmix64(seed);
  const ar = new Ar1(c.phi);
  const end = DRIFT_FROM + HORIZON_MS;
  const n = Math.ceil(end / POINT_MS);
  const times = new Float64Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    times[i] = i * POINT_MS;
    values[i] = 10 + ar.next(standardDraw(c.shape, rng)) + driftAt(times[i]!);
  }
  const charts = {
    frozen: approvedChart(times, values),
    rolling: chartOf({ kind: 'rolling', durationMs: WEEK }),
  };
  const found: Record<keyof typeof charts, Found> = {
    frozen: { cusum: Number.NaN, ewma: Number.NaN, healthy: 0 },
    rolling: { cusum: Number.NaN, ewma: Number.NaN, healthy: 0 },
  };
  let nextPoll = POLL_MS;
  for (let i = 0; i < n; i++) {
    const t = times[i]!;
    const x = values[i]!;
    charts.frozen.add(t, x);
    charts.rolling.add(t, x);
    if (t + POINT_MS < nextPoll) continue;
    for (const k of ['frozen', 'rolling'] as const) {
      const o = charts[k].evaluate({ nowMs: nextPoll, complete: true });
      const f = found[k];
      // Signals on the healthy day between the study week and the drift: chance signals.
      if (nextPoll === WEEK) f.healthy = -(o.events[CUSUM_EVENT]! + o.events[EWMA_EVENT]!);
      if (nextPoll === DRIFT_FROM) f.healthy += o.events[CUSUM_EVENT]! + o.events[EWMA_EVENT]!;
      const cusumAt = o.lastTimes[CUSUM_EVENT]!;
      const ewmaAt = o.lastTimes[EWMA_EVENT]!;
      if (Number.isNaN(f.cusum) && cusumAt >= DRIFT_FROM) f.cusum = cusumAt;
      if (Number.isNaN(f.ewma) && ewmaAt >= DRIFT_FROM) f.ewma = ewmaAt;
    }
    nextPoll += POLL_MS;
    if (Object.values(found).every((f) => !Number.isNaN(f.cusum) && !Number.isNaN(f.ewma))) break;
  }
  const hours = (at: number) => (Number.isNaN(at) ? HORIZON_MS / HOUR : (at - DRIFT_FROM) / HOUR);
  return {
    frozen: {
      cusum: hours(found.frozen.cusum),
      ewma: hours(found.frozen.ewma),
      healthy: found.frozen.healthy,
    },
    rolling: {
      cusum: hours(found.rolling.cusum),
      ewma: hours(found.rolling.ewma),
      healthy: found.rolling.healthy,
    },
  };
}

/**
 * In control, the shipped CUSUM pair (configured and fast) signals by chance once in about 0.89
 * million points with limits known (src/spc/detector-state.ts, by the Brook-Evans chain).
 */
const ARL0_POINTS = 0.89e6;

/**
 * The information limit: hours until the Kullback-Leibler information of the drift, summed
 * point by point (μ² / 2 at a mean μ sigmas off, normal noise), reaches ln(ARL0), Lorden's
 * first-order term for a detector that knows the drift's shape and start.
 */
function informationLimitHours(): number {
  const perWeek = WEEK / POINT_MS;
  const needed = Math.log(ARL0_POINTS);
  let info = 0;
  let n = 0;
  while (info < needed) {
    n++;
    const mu = Math.min(1, n / perWeek);
    info += (mu * mu) / 2;
  }
  return (n * POINT_MS) / HOUR;
}

function row(measure: string, runs: number[]): ResultRow {
  const horizon = HORIZON_MS / HOUR;
  const missed = runs.filter((h) => h >= horizon).length;
  const value = median(runs);
  const sigmas = Math.min(1, value / (WEEK / HOUR));
  const detail =
    missed > 0
      ? `no signal within ${horizon / 24} days in ${missed} of ${runs.length} seeds (counted as ${horizon} h)`
      : `drift at the median signal: ${sigmas.toFixed(2)} sigma`;
  return { measure, value, unit: 'h after the drift starts', runs, detail };
}

function main(): void {
  const startedAt = Date.now();
  const rows: ResultRow[] = [];
  for (const [n, c] of CASES.entries()) {
    // Seeds of their own per case: the cases' figures are independent measurements.
    const runs = Array.from({ length: SEEDS }, (_, i) => runOnce(c, 1000 * n + 1 + i));
    for (const kind of ['frozen', 'rolling'] as const)
      for (const det of ['cusum', 'ewma'] as const) {
        const label = `${c.label}: ${det.toUpperCase()}, ${kind === 'frozen' ? 'frozen approved limits' : 'rolling 7-day baseline'}`;
        rows.push(
          row(
            label,
            runs.map((r) => r[kind][det]),
          ),
        );
      }
    for (const kind of ['frozen', 'rolling'] as const) {
      const healthy = runs.map((r) => r[kind].healthy);
      rows.push({
        measure: `${c.label}: chance signals (CUSUM + EWMA) on the healthy day before the drift, ${kind === 'frozen' ? 'frozen approved limits' : 'rolling 7-day baseline'}`,
        value: median(healthy),
        unit: 'signals in 24 h',
        runs: healthy,
      });
    }
    process.stderr.write(`drift-week: ${c.label} done\n`);
  }
  const limit = informationLimitHours();
  rows.push({
    measure: 'Information limit: a detector that knows the drift (independent normal noise)',
    value: limit,
    unit: 'h after the drift starts',
    detail: `Lorden's first-order term at ARL0 = ${ARL0_POINTS.toLocaleString('en-US')} points: summed KL information μ²/2 reaches ln(ARL0) = ${Math.log(ARL0_POINTS).toFixed(1)}; drift then ${Math.min(1, limit / (WEEK / HOUR)).toFixed(2)} sigma`,
  });
  const file = writeResults(
    {
      name: 'drift-week',
      title: 'A 1 sigma drift over a week: frozen approved limits vs a rolling 7-day baseline',
      command: `npm run bench:drift-week -- --seeds=${SEEDS} --horizon-days=${HORIZON_MS / DAY}`,
      setup: `One chart, a point every 2 minutes: a healthy study week (the frozen chart's limits), a healthy day, then the mean drifting linearly to 1 sigma over 7 days and staying there; the shipped CUSUM and EWMA settings (config defaults), polls every 10 minutes; ${SEEDS} seeds (splitmix64, 1000 × case + 1, 2, 3) per noise case, watched for ${HORIZON_MS / DAY} days after the drift starts.`,
      rows,
      notes: [
        'Delay: hours from the drift’s start to the first signal at or after it; the drift then stands at delay / 168 h sigma. The figure is the median over the seeds.',
        'The frozen chart’s limits are what `limits study` computes for the study week, charted as the exporter charts an approved entry: the given centre, sigma and limits, never moved by new data, the CUSUM and EWMA calibrated on the shape the study measured (standard deviation, phi, skewness, excess kurtosis) as on a rolling baseline of those statistics.',
        'The rolling chart learns the drift: its baseline (the 7 days before the evaluation window) follows the mean, so the CUSUM sees only the part of the drift the baseline lags behind; after a signal the baseline is held for an hour (control.hold).',
        'In-control chance signals of these detectors with estimated baselines are in bench:spc (bench/results/spc.json); a chance signal after the drift’s start counts here as a detection.',
      ],
    },
    { startedAt },
  );
  for (const r of file.rows)
    process.stdout.write(
      `${r.measure}: ${r.value?.toFixed(1)} h (${r.runs?.map((x) => x.toFixed(1)).join(', ') ?? 'computed'}) ${r.detail}\n`,
    );
}

main();
