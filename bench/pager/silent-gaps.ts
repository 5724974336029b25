/**
 * Chance gaps between units at the stations of the simulator's healthy plant, as `StationSilent`
 * sees them: each gap in minutes and in units of the station's own pace (its share of the line's
 * units times the units leaving the line an hour). Computed from the simulator's unit walks, not
 * through the exporter, so weeks of many seeds take seconds; the plant is bench:pager's.
 *
 *   npm run bench:silent-gaps -- [--seeds=7,8,9] [--days=21] [--stations=200]
 *
 * It prints, per size of step (a single station, 2 or 3 parallel ones): the stations, the gaps
 * longer than 30 minutes, the longest gap and the largest number of units of pace missed in one
 * gap, against the rule's threshold of 14.
 */
import { unitAt, unitIndexRange, walkUnit } from '../../src/simulator/flow.ts';
import { buildPlant, type LineModel } from '../../src/simulator/plant.ts';
import { arg } from '../shared/args.ts';
import { plantScale, START } from './plant.ts';

const FLOOR_MIN = 30;
const THRESHOLD_UNITS = 14;
const HOUR_MS = 3_600_000;

interface StepSize {
  stations: number;
  over30: number;
  longestMin: number;
  mostMissed: number;
  overThreshold: number;
}

/** Each station's record times (inputs and outputs) and unit set; the units leaving the line. */
function walkLine(seed: number, line: LineModel, span: { readonly fromMs: number; readonly toMs: number }) {
  const times = new Map<string, number[]>();
  const units = new Map<string, Set<number>>();
  const lineUnits = new Set<number>();
  const last = new Set(line.elements.at(-1)?.stations.map((s) => s.id));
  const leaving = new Set<number>();
  const [k0, k1] = unitIndexRange(line, span.fromMs, span.toMs);
  for (let k = k0; k <= k1; k++) {
    if (!unitAt(seed, line, k)) continue;
    walkUnit(seed, line, {
      k,
      untilMs: span.toMs,
      onVisit: (v) => {
        const id = v.station.id;
        const at = [v.inMs, v.outMs].filter((t) => t >= span.fromMs && t < span.toMs);
        if (at.length === 0) return;
        const list = times.get(id) ?? [];
        list.push(...at);
        times.set(id, list);
        units.set(id, (units.get(id) ?? new Set()).add(k));
        lineUnits.add(k);
        if (last.has(id) && v.outMs < span.toMs) leaving.add(k);
      },
    });
  }
  return {
    times,
    units,
    lineUnits: lineUnits.size,
    leavingPerHour: leaving.size / ((span.toMs - span.fromMs) / HOUR_MS),
  };
}

function tallyLine(
  seed: number,
  line: LineModel,
  sizes: Map<number, StepSize>,
  span: { fromMs: number; toMs: number },
) {
  const walked = walkLine(seed, line, span);
  for (const el of line.elements) {
    const size = sizes.get(el.stations.length) ?? {
      stations: 0,
      over30: 0,
      longestMin: 0,
      mostMissed: 0,
      overThreshold: 0,
    };
    sizes.set(el.stations.length, size);
    for (const st of el.stations) {
      size.stations++;
      const pace = ((walked.units.get(st.id)?.size ?? 0) / walked.lineUnits) * walked.leavingPerHour;
      const t = (walked.times.get(st.id) ?? []).sort((a, b) => a - b);
      for (let i = 1; i < t.length; i++) {
        const gapMin = ((t[i] ?? 0) - (t[i - 1] ?? 0)) / 60_000;
        const missed = (gapMin / 60) * pace;
        size.longestMin = Math.max(size.longestMin, gapMin);
        size.mostMissed = Math.max(size.mostMissed, missed);
        if (gapMin > FLOOR_MIN) size.over30++;
        if (gapMin > FLOOR_MIN && missed >= THRESHOLD_UNITS) size.overThreshold++;
      }
    }
  }
}

function main(): void {
  const seeds = arg('seeds', '7,8,9').split(',').map(Number);
  const days = Number(arg('days', '21'));
  const scale = plantScale(Number(arg('stations', '200')));
  const span = { fromMs: START, toMs: START + days * 24 * HOUR_MS };
  console.log(
    `Gaps between units at the stations of a healthy plant (${days} days; threshold ${THRESHOLD_UNITS} units of pace)\n`,
  );
  console.log(
    '| Seed | Step size | Stations | Gaps > 30 min | Longest gap (min) | Most units of pace missed | Gaps > 30 min and ≥ 14 units |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const seed of seeds) {
    const model = buildPlant(seed, scale);
    const sizes = new Map<number, StepSize>();
    for (const line of model.lines) tallyLine(seed, line, sizes, span);
    for (const [n, s] of [...sizes].sort((a, b) => a[0] - b[0]))
      console.log(
        `| ${seed} | ${n} | ${s.stations} | ${s.over30} | ${s.longestMin.toFixed(1)} | ${s.mostMissed.toFixed(1)} | ${s.overThreshold} |`,
      );
  }
}

main();
