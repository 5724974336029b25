/**
 * Chance alarms of `StationSilent` on the simulator's healthy plant: the shipped rule's evidence
 * (minutes of silence × the units leaving the line in the last hour × −ln(1 − s), s the
 * station's share of the line's units over 24 h, capped at 0.9) computed every minute from the
 * simulator's unit walks, not through the exporter, so weeks of several seeds take seconds; the
 * plant is bench:pager's (realistic by default).
 *
 *   npm run bench:silent-gaps -- [--seeds=7,8,9] [--days=7] [--stations=200] [--plant=realistic|textbook]
 *                                  [--ran-minutes=30]
 *
 * It prints, per size of step (a single station, 2 or 3 parallel ones): the stations, the largest
 * evidence a healthy station reached while silent over 30 minutes, and the chance alarms (the
 * condition held at two evaluations in a row: `for: 1m`) at thresholds of 11, 12 and 13 nats,
 * also per day per 1,000 stations of the whole plant. The rule's other conditions are kept (30
 * minutes of silence; another station of the line recorded a unit in the last 10 minutes, at
 * every evaluation of the last `--ran-minutes` as the shipped rule asks, at this one only with 0;
 * the line built at least 20 units in the hour, counted as the units whose first and last output
 * records span the hour's start or lie in it, which is if anything more than the exporter counts).
 */
import { unitAt, unitIndexRange, walkUnit } from '../../src/simulator/flow.ts';
import { buildPlant, type LineModel } from '../../src/simulator/plant.ts';
import { arg } from '../shared/args.ts';
import { plantScale, START } from './plant.ts';

const MIN_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const FLOOR_MS = 30 * MIN_MS;
const RUNNING_MS = 10 * MIN_MS;
const THRESHOLDS = [11, 12, 13] as const;

interface StepSize {
  stations: number;
  /** Largest evidence (nats) of a station silent over 30 minutes while its line ran. */
  mostNats: number;
  /** Chance alarms per threshold. */
  alarms: number[];
}

/** How many of the sorted `times` lie in (from, to]. */
function countIn(times: readonly number[], from: number, to: number): number {
  return upper(times, to) - upper(times, from);
}

/** The number of sorted `times` at or before `t`. */
function upper(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] ?? 0) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per station its record times and the times its units first reached it; the line's own. */
function walkLine(seed: number, line: LineModel, span: { readonly fromMs: number; readonly toMs: number }) {
  const records = new Map<string, number[]>();
  const arrivals = new Map<string, number[]>();
  const entered: number[] = [];
  const leaving: number[] = [];
  const lineRecords: number[] = [];
  const firstOut: number[] = [];
  const lastOut: number[] = [];
  const last = new Set(line.elements.at(-1)?.stations.map((s) => s.id));
  const [k0, k1] = unitIndexRange(line, span.fromMs, span.toMs);
  for (let k = k0; k <= k1; k++) {
    if (!unitAt(seed, line, k)) continue;
    const seen = new Set<string>();
    let first = true;
    let out0 = Number.POSITIVE_INFINITY;
    let out1 = Number.NEGATIVE_INFINITY;
    walkUnit(seed, line, {
      k,
      untilMs: span.toMs,
      onVisit: (v) => {
        const id = v.station.id;
        if (first) entered.push(v.inMs);
        first = false;
        const list = records.get(id) ?? [];
        list.push(v.inMs, v.outMs);
        records.set(id, list);
        lineRecords.push(v.inMs, v.outMs);
        if (!seen.has(id)) {
          seen.add(id);
          const a = arrivals.get(id) ?? [];
          a.push(v.inMs);
          arrivals.set(id, a);
        }
        if (last.has(id)) leaving.push(v.outMs);
        out0 = Math.min(out0, v.outMs);
        out1 = Math.max(out1, v.outMs);
      },
    });
    if (Number.isFinite(out0)) {
      firstOut.push(out0);
      lastOut.push(out1);
    }
  }
  const sort = (a: number[]) => a.sort((x, y) => x - y);
  for (const a of records.values()) sort(a);
  for (const a of arrivals.values()) sort(a);
  return {
    records,
    arrivals,
    entered: sort(entered),
    leaving: sort(leaving),
    lineRecords: sort(lineRecords),
    firstOut: sort(firstOut),
    lastOut: sort(lastOut),
  };
}

/** Evaluates the rule every minute of `span` for every station of `line`. */
function tallyLine(
  seed: number,
  line: LineModel,
  sizes: Map<number, StepSize>,
  span: { readonly fromMs: number; readonly toMs: number },
  ranMs: number,
): void {
  // A day before the span: the 24 h shares exist from its first minute.
  const w = walkLine(seed, line, { fromMs: span.fromMs - DAY_MS, toMs: span.toMs });
  // Per minute: whether the line ran (a record in the last 10 minutes) at every evaluation of the
  // last `ranMs` (the subquery variant; 0: at this evaluation only, as shipped).
  const minutes = Math.ceil((span.toMs - span.fromMs) / MIN_MS);
  const ranAt: boolean[] = [];
  let lastStop = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < minutes; i++) {
    const t = span.fromMs + i * MIN_MS;
    const lastLine = w.lineRecords[upper(w.lineRecords, t) - 1] ?? Number.NEGATIVE_INFINITY;
    if (t - lastLine >= RUNNING_MS) lastStop = t;
    ranAt.push(t - lastStop > ranMs);
  }
  for (const el of line.elements) {
    const size = sizes.get(el.stations.length) ?? {
      stations: 0,
      mostNats: 0,
      alarms: THRESHOLDS.map(() => 0),
    };
    sizes.set(el.stations.length, size);
    for (const st of el.stations) {
      size.stations++;
      const recs = w.records.get(st.id) ?? [];
      const arr = w.arrivals.get(st.id) ?? [];
      const held = THRESHOLDS.map(() => 0);
      for (let i = 0; i < minutes; i++) {
        const t = span.fromMs + i * MIN_MS;
        const n = upper(recs, t);
        const lastUnit = n > 0 ? (recs[n - 1] ?? 0) : Number.NEGATIVE_INFINITY;
        const silence = t - lastUnit;
        const built = upper(w.firstOut, t) - upper(w.lastOut, t - HOUR_MS);
        let nats = 0;
        if (silence > FLOOR_MS && ranAt[i] && built >= 20) {
          const lineUnits = countIn(w.entered, t - DAY_MS, t);
          const s = lineUnits === 0 ? 0 : Math.min(0.9, countIn(arr, t - DAY_MS, t) / lineUnits);
          const flow = countIn(w.leaving, t - HOUR_MS, t);
          nats = (silence / HOUR_MS) * flow * -Math.log(1 - s);
          size.mostNats = Math.max(size.mostNats, nats);
        }
        THRESHOLDS.forEach((th, i) => {
          const before = held[i] ?? 0;
          held[i] = nats >= th ? before + 1 : 0;
          // `for: 1m`: firing at the second evaluation in a row that holds.
          if (held[i] === 2) size.alarms[i] = (size.alarms[i] ?? 0) + 1;
        });
      }
    }
  }
}

function main(): void {
  const seeds = arg('seeds', '7,8,9').split(',').map(Number);
  const days = Number(arg('days', '7'));
  const plant = arg('plant', 'realistic');
  if (plant !== 'realistic' && plant !== 'textbook')
    throw new Error(`--plant: expected textbook or realistic`);
  const scale = plantScale(Number(arg('stations', '200')));
  const span = { fromMs: START, toMs: START + days * DAY_MS };
  const ranMs = Number(arg('ran-minutes', '0')) * MIN_MS;
  console.log(
    `StationSilent's evidence at the stations of a healthy ${plant} plant (${days} days a seed, every minute)\n`,
  );
  console.log(
    `| Seed | Step size | Stations | Most nats while silent > 30 min | ${THRESHOLDS.map((t) => `Alarms at ${t} nats`).join(' | ')} |`,
  );
  console.log(`|---:|---:|---:|---:|${THRESHOLDS.map(() => '---:').join('|')}|`);
  const totals = THRESHOLDS.map(() => 0);
  let stationDays = 0;
  for (const seed of seeds) {
    const model = buildPlant(seed, scale, {}, plant);
    const sizes = new Map<number, StepSize>();
    for (const line of model.lines) tallyLine(seed, line, sizes, span, ranMs);
    for (const [n, s] of [...sizes].sort((a, b) => a[0] - b[0])) {
      stationDays += s.stations * days;
      s.alarms.forEach((a, i) => {
        totals[i] = (totals[i] ?? 0) + a;
      });
      console.log(`| ${seed} | ${n} | ${s.stations} | ${s.mostNats.toFixed(1)} | ${s.alarms.join(' | ')} |`);
    }
  }
  console.log(
    `\nAll seeds, per day per 1,000 stations: ${THRESHOLDS.map((t, i) => `${t} nats ${(((totals[i] ?? 0) / stationDays) * 1000).toFixed(2)}`).join(', ')} (${stationDays} station-days).`,
  );
}

main();
