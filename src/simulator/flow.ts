import { MAX_ATTEMPTS, NULL_RESULT_RATE, RETEST_FAIL_RATE } from './attempts.ts';
import type { LineModel, StationModel } from './plant.ts';
import { failRateAt } from './process-events.ts';
import { hashString, Purpose, pick, uniform } from './random.ts';
import { productIndexOf } from './realistic-line.ts';

/** A unit entering a line. */
export interface UnitInfo {
  index: number;
  serial: string;
  unitType: string | null;
  engineering: boolean;
  /** On the realistic plant: hash of the unit's product, known even when `unitType` is null. */
  productHash?: number;
}

/** One attempt of a unit at a station: an input record at `inMs`, an output record at `outMs`. */
export interface Visit {
  station: StationModel;
  step: number;
  attempt: number;
  inMs: number;
  outMs: number;
  result: 'pass' | 'fail' | null;
}

const EXIST_RATE = 0.96;

/** The range of unit indexes of a line whose records may fall in [fromMs, toMs). */
export function unitIndexRange(line: LineModel, fromMs: number, toMs: number): [number, number] {
  const first = Math.floor((fromMs - lookbackMs(line, fromMs) - line.epochMs) / line.periodMs) - 1;
  const last = Math.floor((toMs - line.epochMs) / line.periodMs);
  return [Math.max(0, first), last];
}

/** The longest a unit entering this long before `fromMs` may still leave records from `fromMs` on. */
function lookbackMs(line: LineModel, fromMs: number): number {
  const stops = line.realistic?.stops;
  if (!stops) return line.maxSpanMs;
  // A stop holds the units inside the line: they wait for as long as it lasts. Stops within the
  // 3 hours before the span cover any chain of them (the longest chain is under 2.5 hours).
  return line.maxSpanMs + stops.stoppedWithin(fromMs - line.maxSpanMs - LONGEST_STOP_CHAIN_MS, fromMs);
}

const LONGEST_STOP_CHAIN_MS = 3 * 3_600_000;

/** The unit with index `k`, or null when no unit entered in that slot (idle time, or the line stood). */
export function unitAt(seed: number, line: LineModel, k: number): UnitInfo | null {
  const { realistic } = line;
  if (uniform(seed, Purpose.exists, line.hash, k) >= EXIST_RATE) return null;
  if (realistic?.stops?.stopped(line.epochMs + k * line.periodMs)) return null;
  const typeU = uniform(seed, Purpose.unitType, line.hash, k);
  const unit: UnitInfo = {
    index: k,
    serial: `${line.serialPrefix}-${String(k).padStart(8, '0')}`,
    unitType: typeU < 0.02 ? null : pick(line.products, typeU),
    engineering: uniform(seed, Purpose.mode, line.hash, k) < 0.03,
  };
  if (realistic === undefined) return unit;
  // The realistic plant's product follows its mix, and is known even when the type is not reported.
  const product = line.products[productIndexOf(seed, { lineHash: line.hash, k, line: realistic })]!;
  return { ...unit, unitType: unit.unitType === null ? null : product, productHash: hashString(product) };
}

function resultOf(
  seed: number,
  line: LineModel,
  at: {
    readonly k: number;
    readonly step: number;
    readonly attempt: number;
    readonly failRate: number;
    readonly retestFailRate: number;
  },
) {
  const { k, step, attempt, failRate, retestFailRate } = at;
  const u = uniform(seed, Purpose.result, line.hash, k, step, attempt);
  if (u < NULL_RESULT_RATE) return null;
  const rate = attempt === 0 ? failRate : retestFailRate;
  return u < NULL_RESULT_RATE + rate ? 'fail' : 'pass';
}

/**
 * Walks unit `k` along its line, calling `onVisit` for each attempt in time order, and stops once
 * a visit starts at or after `untilMs` (later records cannot be wanted) or the unit is scrapped.
 */
export function walkUnit(
  seed: number,
  line: LineModel,
  walk: { readonly k: number; readonly untilMs: number; readonly onVisit: (v: Visit) => void },
) {
  const { k } = walk;
  const p = line.periodMs;
  let t = Math.round(line.epochMs + k * p + 0.9 * p * uniform(seed, Purpose.entry, line.hash, k));
  for (let step = 0; step < line.elements.length; step++) {
    const next = walkStep(seed, line, { walk, step, t });
    if (next === null) return;
    t = next;
  }
}

/** The attempts of unit `walk.k` at `step` from `t`: the time it moves on, or null when it stops here. */
function walkStep(
  seed: number,
  line: LineModel,
  at: {
    readonly walk: { readonly k: number; readonly untilMs: number; readonly onVisit: (v: Visit) => void };
    readonly step: number;
    readonly t: number;
  },
): number | null {
  const { walk, step } = at;
  const { k, untilMs, onVisit } = walk;
  const p = line.periodMs;
  const stops = line.realistic?.stops ?? undefined;
  const el = line.elements[step]!;
  const station = pick(el.stations, uniform(seed, Purpose.choose, line.hash, k, step));
  const baseFail = station.rates?.firstFailRate ?? el.failRate;
  const retestFailRate = station.rates?.retestFailRate ?? RETEST_FAIL_RATE;
  let t = at.t;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // While the line stands no test starts: the unit waits where it is.
    t = stops === undefined ? t : stops.resume(t);
    if (t >= untilMs) return null;
    const cycle = el.cycleMs * (0.85 + 0.3 * uniform(seed, Purpose.cycle, line.hash, k, step, attempt));
    const outMs = t + Math.round(cycle);
    const failRate = failRateAt(station.stationEvents, baseFail, t);
    const result = resultOf(seed, line, { k, step, attempt, failRate, retestFailRate });
    onVisit({ station, step, attempt, inMs: t, outMs, result });
    if (result === 'pass') {
      return outMs + Math.round((0.05 + 0.25 * uniform(seed, Purpose.transport, line.hash, k, step)) * p);
    }
    const gap = 0.1 + 0.4 * uniform(seed, Purpose.retryDelay, line.hash, k, step, attempt);
    t = outMs + Math.round(gap * p);
  }
  return null;
}
