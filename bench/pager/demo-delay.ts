/**
 * How long after the demo's shift its MeasurementShiftDetected notification comes, as a model:
 * points every 2 minutes at a random phase, the CUSUM with the shipped defaults and the fast
 * CUSUM beside it (the exporter's own step, from 0; either signal counts) on Gaussian points
 * shifted by `sigmas`, then the exporter's poll, the scrape and the rule
 * evaluation (each 1m: a uniform wait of 0 to 1 minute) and Alertmanager's group_wait (30 s).
 * The README's demo paragraph quotes it.
 *
 *   npx tsx bench/pager/demo-delay.ts [--runs=200000] [--seed=1]
 */

import { configFromObject } from '../../src/config/load.ts';
import { cusumAdd } from '../../src/spc/cusum.ts';
import { FAST_CUSUM } from '../../src/spc/detector-state.ts';
import { arg } from '../shared/args.ts';
import { splitmix64 } from '../shared/random.ts';

/** The CUSUM settings a config without any gets. */
const CUSUM = configFromObject(
  {
    upstream: { base_url: 'http://demo', token: 't' },
    measurements: { enabled: true, names: ['x'], control: { names: ['x'] } },
  },
  { env: {}, baseDir: '/' },
).measurements.control.cusum;
const POINT_MIN = 2;
const GROUP_WAIT_MIN = 0.5;

/** Minutes from the shift to the notification, one run per element. */
export function demoDelays(opts: { readonly sigmas: number; readonly runs: number; readonly seed: number }): {
  readonly minutes: number[];
  readonly meanPoints: number;
} {
  const random = splitmix64(opts.seed);
  const u = () => random.uniform();
  const minutes: number[] = [];
  let points = 0;
  for (let r = 0; r < opts.runs; r++) {
    const sums = { upper: 0, lower: 0 };
    const fast = { upper: 0, lower: 0 };
    let n = 0;
    let signal: unknown;
    do {
      n++;
      const x = opts.sigmas + random.normal();
      // Both sums take every point, as the chart runs them; either signal is the event.
      const slow = cusumAdd(sums, x, CUSUM);
      signal = cusumAdd(fast, x, FAST_CUSUM) ?? slow;
    } while (signal === undefined);
    points += n;
    minutes.push(u() * POINT_MIN + POINT_MIN * (n - 1) + u() + u() + u() + GROUP_WAIT_MIN);
  }
  return { minutes: minutes.sort((a, b) => a - b), meanPoints: points / opts.runs };
}

function main(): void {
  const runs = Number(arg('runs', '200000'));
  const seed = Number(arg('seed', '1'));
  const rows = [2, 3, 3.5, 4, 5].map((sigmas) => {
    const { minutes, meanPoints } = demoDelays({ sigmas, runs, seed });
    const q = (p: number) => (minutes[Math.floor(p * (minutes.length - 1))] ?? 0).toFixed(1);
    const mean = minutes.reduce((a, b) => a + b, 0) / minutes.length;
    const over = minutes.filter((m) => m > 10).length / minutes.length;
    return `| ${sigmas} | ${meanPoints.toFixed(2)} | ${mean.toFixed(1)} | ${q(0.05)} | ${q(0.5)} | ${q(0.95)} | ${(over * 100).toFixed(0)} % |`;
  });
  process.stdout.write(
    [
      `Demo shift to notification (model, ${runs} runs): a point every ${POINT_MIN} min, CUSUM k = ${CUSUM.k}, h = ${CUSUM.h}, cap ${CUSUM.cap} and the fast CUSUM k = ${FAST_CUSUM.k}, h = ${FAST_CUSUM.h}, cap ${FAST_CUSUM.cap}; poll, scrape, evaluation 1m each; group_wait 30 s.`,
      '',
      '| shift (sigma) | points to signal | mean (min) | 5 % | median | 95 % | over 10 min |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
}

if (process.argv[1]?.endsWith('demo-delay.ts')) main();
