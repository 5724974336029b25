import { type MeasurementEvent, measurementEffect } from './process-events.ts';
import { gaussian, hashInts, hashString, Purpose, uniform } from './random.ts';

/** How a measurement's value is produced. */
export type MeasurementKind = 'numeric' | 'passfail' | 'cycle';

/** A measurement name with its unit, distribution and spec limits. */
export interface MeasurementSpec {
  index: number;
  name: string;
  unit: string;
  type: 'float' | null;
  kind: MeasurementKind;
  nominal: number;
  sd: number;
  decimals: number;
  lower: number | null;
  upper: number | null;
  limitLower: string | null;
  limitUpper: string | null;
  /** Slow sinusoidal drift: amplitude in standard deviations, period in ms, phase in radians. */
  driftAmp: number;
  driftPeriodMs: number;
  driftPhase: number;
  nameHash: number;
}

type Limits = 'both' | 'upper' | 'lower' | 'none';

interface BaseSpec {
  name: string;
  unit: string;
  kind: MeasurementKind;
  nominal: number;
  sd: number;
  decimals: number;
  limits: Limits;
  typed: boolean;
}

function numeric(name: string, unit: string, nominal: number, sd: number, decimals: number, limits: Limits) {
  return { name, unit, kind: 'numeric', nominal, sd, decimals, limits, typed: true } as BaseSpec;
}

// The first eight cover every shape a consumer must handle, so the default plant exercises all of
// them: both/one/no limits, a null type, a pass/fail string and a cycle time.
const BASE: BaseSpec[] = [
  numeric('vcc_3v3', 'V', 3.3, 0.02, 3, 'both'),
  numeric('idle_current', 'mA', 42, 1.5, 2, 'upper'),
  { ...numeric('solder_height', 'mm', 0.12, 0.008, 3, 'both'), typed: false },
  numeric('board_temp', 'degC', 38, 1.2, 1, 'upper'),
  { ...numeric('test_time', 's', 0, 0, 2, 'none'), kind: 'cycle' },
  { ...numeric('firmware_check', '', 0, 0, 0, 'none'), kind: 'passfail', typed: false },
  numeric('insulation_resistance', 'MOhm', 520, 25, 0, 'lower'),
  numeric('rf_tx_power', 'dBm', 14, 0.6, 2, 'both'),
  numeric('vcc_5v0', 'V', 5, 0.03, 3, 'both'),
  numeric('active_current', 'mA', 310, 8, 1, 'both'),
  numeric('leakage_current', 'mA', 0.02, 0.004, 4, 'upper'),
  numeric('paste_volume', '%', 100, 5, 1, 'both'),
  numeric('contact_resistance', 'mOhm', 25, 2, 2, 'upper'),
  numeric('clock_freq', 'Hz', 32768, 0.5, 2, 'both'),
  { ...numeric('barcode_match', '', 0, 0, 0, 'none'), kind: 'passfail', typed: false },
  numeric('label_weight', 'g', 12.5, 0.2, 2, 'lower'),
  numeric('flatness', 'um', 40, 6, 1, 'upper'),
  numeric('seal_pressure', 'kPa', 101, 0.8, 2, 'both'),
  numeric('fan_speed', 'rpm', 4200, 60, 0, 'both'),
  { ...numeric('ambient_humidity', '%', 45, 3, 1, 'none'), typed: false },
  numeric('vcore_1v8', 'V', 1.8, 0.01, 3, 'both'),
  numeric('torque', 'Nm', 1.2, 0.05, 3, 'both'),
];

const EXOTIC_NAME = 'Temperatur "Gehäuse" \\ Zone\n2';

function limitsOf(base: BaseSpec, seed: number, index: number) {
  if (base.kind !== 'numeric' || base.limits === 'none') return { lower: null, upper: null };
  const width = base.sd * (3.5 + 1.5 * uniform(seed, Purpose.measure, index, 1));
  return {
    lower: base.limits === 'upper' ? null : base.nominal - width,
    upper: base.limits === 'lower' ? null : base.nominal + width,
  };
}

function specAt(seed: number, index: number, exotic: boolean): MeasurementSpec {
  const base = BASE[index % BASE.length]!;
  const round = Math.floor(index / BASE.length);
  // Repeated rounds reuse a shape under a new name with a shifted nominal, so values differ.
  const scale = round === 0 ? 1 : 0.8 + 0.4 * uniform(seed, Purpose.measure, index, 0);
  const scaled = { ...base, nominal: base.nominal * scale, sd: base.sd * scale };
  let name = round === 0 ? base.name : `${base.name}_${round + 1}`;
  if (exotic && index === 3) name = EXOTIC_NAME;
  const { lower, upper } = limitsOf(scaled, seed, index);
  return {
    index,
    name,
    unit: scaled.unit,
    type: scaled.typed ? 'float' : null,
    kind: scaled.kind,
    nominal: scaled.nominal,
    sd: scaled.sd,
    decimals: scaled.decimals,
    lower,
    upper,
    limitLower: lower === null ? null : lower.toFixed(scaled.decimals),
    limitUpper: upper === null ? null : upper.toFixed(scaled.decimals),
    driftAmp: 0.5 + uniform(seed, Purpose.measure, index, 2),
    driftPeriodMs: (2 + 10 * uniform(seed, Purpose.measure, index, 3)) * 3_600_000,
    driftPhase: 2 * Math.PI * uniform(seed, Purpose.measure, index, 4),
    nameHash: hashString(name),
  };
}

/** The catalog of measurement names for a plant; deterministic from the seed. */
export function measurementCatalog(seed: number, count: number, exotic: boolean): MeasurementSpec[] {
  return Array.from({ length: count }, (_, i) => specAt(seed, i, exotic));
}

/** Everything a measured value depends on. */
export interface ValueContext {
  seed: number;
  stationHash: number;
  /** Hash coordinates of the visit: line hash, unit index, step, attempt. */
  visit: readonly [number, number, number, number];
  timeMs: number;
  cycleMs: number;
  /** The visit failed and this measurement is the one that explains it. */
  failing: boolean;
  /** Injected changes of the station's measurements (process scenario). */
  events?: readonly MeasurementEvent[];
}

const EMPTY_VALUE_RATE = 0.002;

/** The value string of one measurement record. */
export function measuredValue(spec: MeasurementSpec, ctx: ValueContext): string {
  const [lineHash, unit, step, attempt] = ctx.visit;
  // One hash of all coordinates, then cheap derived draws: this runs once per metric record.
  const h = hashInts(ctx.seed, Purpose.value, lineHash, unit, step, attempt, spec.nameHash);
  if (!ctx.failing && uniform(h, Purpose.empty) < EMPTY_VALUE_RATE) return '';
  if (spec.kind === 'passfail') return ctx.failing ? 'FAIL' : 'PASS';
  if (spec.kind === 'cycle') return (ctx.cycleMs / 1000).toFixed(spec.decimals);
  const offset = 0.3 * spec.sd * gaussian(ctx.seed, Purpose.value, ctx.stationHash, spec.nameHash);
  const drift =
    spec.driftAmp *
    spec.sd *
    Math.sin((2 * Math.PI * ctx.timeMs) / spec.driftPeriodMs + spec.driftPhase + (ctx.stationHash % 7));
  let value = spec.nominal + offset + drift + spec.sd * gaussian(h);
  if (ctx.events !== undefined) {
    const injected = measurementEffect(ctx.events, spec.name, ctx.timeMs);
    value += spec.sd * (injected.sigmas + (injected.factor - 1) * gaussian(h));
  }
  value = ctx.failing ? outside(spec, uniform(h, 1)) : inside(spec, value, uniform(h, 2));
  return value.toFixed(spec.decimals);
}

function outside(spec: MeasurementSpec, u: number): number {
  const beyond = spec.sd * (0.2 + 1.5 * u);
  if (spec.upper !== null && (spec.lower === null || u < 0.5)) return spec.upper + beyond;
  if (spec.lower !== null) return spec.lower - beyond;
  return spec.nominal;
}

// A passing visit never shows a value outside its limits, so results and values agree.
function inside(spec: MeasurementSpec, value: number, u: number): number {
  const margin = spec.sd * 0.3 * (0.2 + u);
  if (spec.upper !== null && value > spec.upper) return spec.upper - margin;
  if (spec.lower !== null && value < spec.lower) return spec.lower + margin;
  return value;
}

/** Whether a failing visit can point at this measurement as its cause. */
export function canExplainFailure(spec: MeasurementSpec): boolean {
  return spec.kind === 'passfail' || spec.lower !== null || spec.upper !== null;
}
