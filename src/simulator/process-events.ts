/**
 * Process scenarios: changes of the synthetic process injected as data, so that tests and demos
 * can show control charts and p-charts catching them; each in force over [fromMs, toMs), open-ended
 * without `toMs`. Everything stays a pure function of the seed, the clock and these events.
 */
export interface Span {
  readonly fromMs: number;
  readonly toMs?: number;
}

interface MeasurementTarget extends Span {
  readonly stationId: string;
  readonly name: string;
}

/** A step change of the mean by `sigmas` of the measurement's standard deviation. */
interface ShiftEvent extends MeasurementTarget {
  readonly kind: 'shift';
  readonly sigmas: number;
}
/** A drift of the mean growing by `sigmasPerHour` standard deviations every hour since `fromMs`. */
interface TrendEvent extends MeasurementTarget {
  readonly kind: 'trend';
  readonly sigmasPerHour: number;
}
/** The random part of the values multiplied by `factor` (a variance increase for factor > 1). */
interface VarianceEvent extends MeasurementTarget {
  readonly kind: 'variance';
  readonly factor: number;
}
/**
 * A yield drop on one line: a seeded share `failRatio` (0..1) of its units, chosen by serial, fail
 * at the line's last step, so both yields drop by about that share; without `fromMs`, always. The
 * scenario field `yieldDrop` and the process event `yield_drop` share this type and `applyYieldDrops`.
 */
export interface YieldDrop {
  readonly lineId: string;
  readonly failRatio: number;
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** A yield drop as a process event: it needs its start. */
interface YieldDropEvent extends YieldDrop {
  readonly kind: 'yield_drop';
  readonly fromMs: number;
}

/** A station reports no record, while units still pass through it and its line runs on. */
interface SilenceEvent extends Span {
  readonly kind: 'silence';
  readonly stationId: string;
}

/**
 * The first-attempt failure rate of one station becomes `failRate` (0..1); its retry ratio follows
 * (about 1.3 x failRate / (1 + 1.3 x failRate)). Events of one station do not add: the last one wins.
 */
interface FailRateEvent extends Span {
  readonly kind: 'fail_rate';
  readonly stationId: string;
  readonly failRate: number;
}

/** A measurement event. */
export type MeasurementEvent = ShiftEvent | TrendEvent | VarianceEvent;
/** An event that changes what one station does (not its measurements). */
export type StationEvent = SilenceEvent | FailRateEvent;
/** One change of the process. */
export type ProcessEvent = MeasurementEvent | YieldDropEvent | StationEvent;

/** The process scenario of a simulator. */
export interface ProcessScenario {
  /** The default slow sinusoidal drift; off, values are stationary and charts flag only the events. */
  readonly drift?: boolean;
  readonly events?: readonly ProcessEvent[];
}

const HOUR_MS = 3_600_000;

/** Whether a station is silent at `t`. */
export function silentAt(events: readonly StationEvent[] | undefined, t: number): boolean {
  return events?.some((e) => e.kind === 'silence' && active(e, t)) ?? false;
}

/** A station's first-attempt failure rate at `t`: the last fail_rate event in force, else `base`. */
export function failRateAt(events: readonly StationEvent[] | undefined, base: number, t: number): number {
  let rate = base;
  for (const e of events ?? []) if (e.kind === 'fail_rate' && active(e, t)) rate = e.failRate;
  return rate;
}

/** Whether a change is in force at `t` (from the beginning of time when it has no start). */
export const active = (e: Partial<Span>, t: number) =>
  (e.fromMs === undefined || t >= e.fromMs) && (e.toMs === undefined || t < e.toMs);

/** The change of the mean (in standard deviations) and the noise factor at time `t`. */
export function measurementEffect(
  events: readonly MeasurementEvent[] | undefined,
  name: string,
  t: number,
): { sigmas: number; factor: number } {
  let sigmas = 0;
  let factor = 1;
  if (events === undefined) return { sigmas, factor };
  for (const e of events) {
    if (e.name !== name || !active(e, t)) continue;
    if (e.kind === 'shift') sigmas += e.sigmas;
    else if (e.kind === 'trend') sigmas += (e.sigmasPerHour * (t - e.fromMs)) / HOUR_MS;
    else factor *= e.factor;
  }
  return { sigmas, factor };
}
