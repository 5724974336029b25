/**
 * `npm run bench:approved-chance`: how often charts at approved limits signal by chance on
 * healthy data, with and without the calibration their study measured. Each chart gets a study
 * week of points every 2 minutes, studied as `limits study` studies it (src/spc/study.ts: limits
 * and the shape of the kept points), then `--days` more days of the same healthy process. Its
 * points run through two approved charts of the study's limits (src/spc/limits.ts givenLimits):
 * one with the study's shape (standard deviation, φ, skewness, excess kurtosis), as the exporter
 * charts an entry that carries `calibration`, and one without (the centre and sigma as given),
 * stepped as the collector steps them (detectorValue, the configured and the fast CUSUM, both
 * restarted after a signal), with the shipped CUSUM settings. Shapes: independent normal (the
 * textbook), Gaussian AR(1) of φ 0.3, lognormal of s 0.5 (skewness 1.75), drawn from splitmix64.
 * Rolling charts of the same shapes are bench:spc's (bench/results/spc.json).
 *
 * Arguments: --charts=N (per shape and seed, default 400), --days=D (after the study week,
 * default 28), --seeds=S (default 3).
 */

import { Ar1, type Shape, standardDraw } from '../../src/simulator/shapes.ts';
import { cusumStart } from '../../src/spc/cusum.ts';
import {
  type DetectorParams,
  detectorValue,
  effectiveParams,
  FAST_CUSUM,
  stepCusums,
} from '../../src/spc/detector-state.ts';
import { type ControlLimits, givenLimits, NELSON_RULES } from '../../src/spc/index.ts';
import { studyChart } from '../../src/spc/study.ts';
import { arg } from '../shared/args.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';
import { SHIPPED_CUSUM_PAIR } from './shipped-detectors.ts';
import { splitmix64Fast } from './splitmix-fast.ts';

const POINT_MS = 120_000;
const POINTS_PER_DAY = 720;
const STUDY_POINTS = 7 * POINTS_PER_DAY;
const CHARTS = Number(arg('charts', '400'));
const DAYS = Number(arg('days', '28'));
const SEEDS = Number(arg('seeds', '3'));

const PARAMS = SHIPPED_CUSUM_PAIR;

interface HealthyShape {
  readonly label: string;
  readonly shape: Shape;
  readonly phi: number;
}

const SHAPES: readonly HealthyShape[] = [
  { label: 'independent normal (textbook)', shape: { kind: 'normal' }, phi: 0 },
  { label: 'AR(1) phi 0.3', shape: { kind: 'normal' }, phi: 0.3 },
  { label: 'lognormal, s 0.5 (skewness 1.75)', shape: { kind: 'lognormal', sigma: 0.5 }, phi: 0 },
];

/** One approved chart's CUSUM pair. */
class Detectors {
  private readonly params: DetectorParams;
  private main;
  private fast;

  constructor(private readonly limits: ControlLimits) {
    this.params = effectiveParams(PARAMS, limits);
    this.main = cusumStart(this.params.cusum);
    this.fast = cusumStart(this.params.fast ?? FAST_CUSUM);
  }

  /** Steps a point; true at a signal (then both sums restart). */
  step(x: number): boolean {
    const z = detectorValue(this.limits, x);
    if (stepCusums(this.main, this.fast, z, this.params) === undefined) return false;
    this.main = cusumStart(this.params.cusum);
    this.fast = cusumStart(this.params.fast ?? FAST_CUSUM);
    return true;
  }
}

/** Chance signals of the two approved charts of each chart's study, and the points they saw. */
function run(h: HealthyShape, seed: number) {
  const counts = { calibrated: 0, bare: 0, points: 0, phi: [] as number[], skewness: [] as number[] };
  const times = Float64Array.from({ length: STUDY_POINTS }, (_, i) => i * POINT_MS);
  const values = new Float64Array(STUDY_POINTS);
  for (let c = 0; c < CHARTS; c++) {
    const rng = splitmix64Fast(BigInt(seed) * 1_000_003n + BigInt(c) * 7919n);
    const ar = new Ar1(h.phi);
    const next = () => 10 + ar.next(standardDraw(h.shape, rng));
    for (let i = 0; i < STUDY_POINTS; i++) values[i] = next();
    const study = studyChart(
      { times, values },
      {
        settings: { rules: NELSON_RULES, detectors: PARAMS, compensate: true, minSamples: 25 },
        excluded: [],
        period: { fromMs: 0, toMs: STUDY_POINTS * POINT_MS },
      },
    );
    if (!study.result.ok || study.result.limits.calibration === undefined) continue;
    const { center, ucl, lcl, sigma, calibration: k } = study.result.limits;
    const shape = { sigma: k.sigma, phi: k.phi, skewness: k.skewness, excessKurtosis: k.excessKurtosis ?? 0 };
    const withShape = givenLimits({ center, ucl, lcl, sigma, shape });
    const bare = givenLimits({ center, ucl, lcl, sigma });
    if (!withShape.ok || !bare.ok) continue;
    counts.phi.push(k.phi);
    counts.skewness.push(k.skewness);
    const a = new Detectors(withShape.limits);
    const b = new Detectors(bare.limits);
    const n = DAYS * POINTS_PER_DAY;
    for (let i = 0; i < n; i++) {
      const x = next();
      if (a.step(x)) counts.calibrated++;
      if (b.step(x)) counts.bare++;
    }
    counts.points += n;
  }
  return counts;
}

/** Per 1,000 charts a day, from signals over chart-points. */
const perThousandDaily = (signals: number, points: number) => (signals / points) * POINTS_PER_DAY * 1000;

function main(): void {
  const startedAt = Date.now();
  const rows: ResultRow[] = [];
  let textbook = Number.NaN;
  for (const h of SHAPES) {
    const runs = Array.from({ length: SEEDS }, (_, i) => run(h, 1 + i));
    const points = runs.reduce((a, r) => a + r.points, 0);
    const total = (k: 'calibrated' | 'bare') => runs.reduce((a, r) => a + r[k], 0);
    const rate = (k: 'calibrated' | 'bare') => perThousandDaily(total(k), points);
    const seedRates = (k: 'calibrated' | 'bare') =>
      `seeds ${runs.map((r) => perThousandDaily(r[k], r.points).toFixed(2)).join(', ')}`;
    const phis = runs.flatMap((r) => r.phi);
    const skews = runs.flatMap((r) => r.skewness);
    if (h.phi === 0 && h.shape.kind === 'normal') textbook = rate('calibrated');
    const measured = `study's phi median ${median(phis).toFixed(3)}, skewness median ${median(skews).toFixed(2)}`;
    rows.push({
      measure: `${h.label}: approved limits with the study's calibration, chance CUSUM signals`,
      value: rate('calibrated'),
      unit: 'per day per 1,000 charts',
      detail: `${total('calibrated')} signals in ${(points / POINTS_PER_DAY).toLocaleString('en-US')} chart-days (${seedRates('calibrated')}); ${(rate('calibrated') / textbook).toFixed(2)} × textbook; ${measured}`,
      target: { op: '<=', bound: Math.min(10, 2 * textbook) },
    });
    rows.push({
      measure: `${h.label}: approved limits without it (centre and sigma as given), chance CUSUM signals`,
      value: rate('bare'),
      unit: 'per day per 1,000 charts',
      detail: `${total('bare')} signals (${seedRates('bare')}); ${(rate('bare') / Math.max(rate('calibrated'), Number.MIN_VALUE)).toFixed(1)} × with the calibration`,
    });
    process.stderr.write(`approved-chance: ${h.label} done\n`);
  }
  const file = writeResults(
    {
      name: 'approved-chance',
      title: 'Chance signals of approved charts, with and without their study’s calibration',
      command: `npm run bench:approved-chance -- --charts=${CHARTS} --days=${DAYS} --seeds=${SEEDS}`,
      setup: `Per shape and seed (${SEEDS}), ${CHARTS} charts: a study week of points every 2 minutes studied as limits study studies it, then ${DAYS} days of the same healthy process through two approved charts of the study's limits, with and without its calibration; the shipped CUSUM pair (k 0.625, h 10, cap 2.5, fast initial response; the fast CUSUM beside it), splitmix64.`,
      rows,
      notes: [
        'Chance CUSUM signals: signals of the configured or the fast CUSUM (one CUSUM event) on healthy data, all seeds pooled, per day per 1,000 charts at a point every 2 minutes; the detail gives each seed’s rate.',
        'With the calibration: the detectors calibrated on the study’s standard deviation, phi, skewness and excess kurtosis, as a rolling baseline of those statistics is (src/spc/calibration.ts). Without: standardized by the approved centre and sigma, no widening, no transform.',
        'Target: at most 10 a day per 1,000 charts and at most twice the textbook shape’s rate with the calibration, bench:spc’s targets for rolling charts (bench/results/spc.json has the rolling rates of the same shapes).',
      ],
    },
    { startedAt },
  );
  for (const r of file.rows) process.stdout.write(`${r.measure}: ${r.value?.toFixed(2)} ${r.detail}\n`);
}

main();
