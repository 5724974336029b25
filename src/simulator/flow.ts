import { type LineModel, MAX_ATTEMPTS, type StationModel } from './plant.ts';
import { failRateAt } from './process-events.ts';
import { Purpose, pick, uniform } from './random.ts';

/** A unit entering a line. */
export interface UnitInfo {
  index: number;
  serial: string;
  unitType: string | null;
  engineering: boolean;
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
const NULL_RESULT_RATE = 0.004;
// A real defect tends to fail again; most first failures, though, are false calls that pass on retest.
const RETEST_FAIL_RATE = 0.3;

/** The range of unit indexes of a line whose records may fall in [fromMs, toMs). */
export function unitIndexRange(line: LineModel, fromMs: number, toMs: number): [number, number] {
  const first = Math.floor((fromMs - line.maxSpanMs - line.epochMs) / line.periodMs) - 1;
  const last = Math.floor((toMs - line.epochMs) / line.periodMs);
  return [Math.max(0, first), last];
}

/** The unit with index `k`, or null when no unit entered in that slot (idle time). */
export function unitAt(seed: number, line: LineModel, k: number): UnitInfo | null {
  if (uniform(seed, Purpose.exists, line.hash, k) >= EXIST_RATE) return null;
  const typeU = uniform(seed, Purpose.unitType, line.hash, k);
  return {
    index: k,
    serial: `${line.serialPrefix}-${String(k).padStart(8, '0')}`,
    unitType: typeU < 0.02 ? null : pick(line.products, typeU),
    engineering: uniform(seed, Purpose.mode, line.hash, k) < 0.03,
  };
}

function resultOf(
  seed: number,
  line: LineModel,
  at: { readonly k: number; readonly step: number; readonly attempt: number; readonly failRate: number },
) {
  const { k, step, attempt, failRate } = at;
  const u = uniform(seed, Purpose.result, line.hash, k, step, attempt);
  if (u < NULL_RESULT_RATE) return null;
  const rate = attempt === 0 ? failRate : RETEST_FAIL_RATE;
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
  const { k, untilMs, onVisit } = walk;
  const p = line.periodMs;
  let t = Math.round(line.epochMs + k * p + 0.9 * p * uniform(seed, Purpose.entry, line.hash, k));
  for (let step = 0; step < line.elements.length; step++) {
    const el = line.elements[step]!;
    const station = pick(el.stations, uniform(seed, Purpose.choose, line.hash, k, step));
    let passed = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !passed; attempt++) {
      if (t >= untilMs) return;
      const cycle = el.cycleMs * (0.85 + 0.3 * uniform(seed, Purpose.cycle, line.hash, k, step, attempt));
      const outMs = t + Math.round(cycle);
      const failRate = failRateAt(station.stationEvents, el.failRate, t);
      const result = resultOf(seed, line, { k, step, attempt, failRate });
      onVisit({ station, step, attempt, inMs: t, outMs, result });
      passed = result === 'pass';
      const gap = passed
        ? 0.05 + 0.25 * uniform(seed, Purpose.transport, line.hash, k, step)
        : 0.1 + 0.4 * uniform(seed, Purpose.retryDelay, line.hash, k, step, attempt);
      t = outMs + Math.round(gap * p);
    }
    if (!passed) return;
  }
}
