import { type MeasurementEvent, measurementEffect } from './process-events.ts';
import { gaussian, hashInts, hashString, Purpose, uniform } from './random.ts';
import {
  REALISTIC_BEHAVIOUR,
  type RealisticBehaviour,
  realisticNoise,
  realisticOffset,
} from './realistic.ts';

/** The shape of a catalog entry: its name, unit, distribution and which spec limits it has. */
interface BaseSpec {
  name: string;
  unit: string;
  /** How its value is produced. */
  kind: 'numeric' | 'passfail' | 'cycle';
  nominal: number;
  sd: number;
  decimals: number;
  limits: 'both' | 'upper' | 'lower' | 'none';
  typed: boolean;
  incapable?: boolean;
}

/** A measurement name with its unit, distribution and spec limits. */
export interface MeasurementSpec
  extends Pick<BaseSpec, 'name' | 'unit' | 'kind' | 'nominal' | 'sd' | 'decimals'> {
  index: number;
  type: 'float' | null;
  lower: number | null;
  upper: number | null;
  limitLower: string | null;
  limitUpper: string | null;
  /** Slow sinusoidal drift: amplitude in sd, period in ms, phase in radians. */
  driftAmp: number;
  driftPeriodMs: number;
  driftPhase: number;
  nameHash: number;
  /** Deliberately incapable: spec limits at ±3 sd, and it explains its stations' failing visits. */
  incapable: boolean;
  /** On the realistic plant: its distribution, autocorrelation and product spread (no drift). */
  behaviour?: RealisticBehaviour;
}

function numeric(name: string, spec: Pick<BaseSpec, 'unit' | 'nominal' | 'sd' | 'decimals' | 'limits'>) {
  const { unit, nominal, sd, decimals, limits } = spec;
  return { name, unit, kind: 'numeric', nominal, sd, decimals, limits, typed: true } as BaseSpec;
}

const passfail = (name: string): BaseSpec => ({
  ...numeric(name, { unit: '', nominal: 0, sd: 0, decimals: 0, limits: 'none' }),
  kind: 'passfail',
  typed: false,
});

// The first eight cover every shape a consumer must handle, so the default plant exercises all of
// them: both/one/no limits, a null type, a pass/fail string and a cycle time.
const BASE: BaseSpec[] = [
  numeric('vcc_3v3', { unit: 'V', nominal: 3.3, sd: 0.02, decimals: 3, limits: 'both' }),
  numeric('idle_current', { unit: 'mA', nominal: 42, sd: 1.5, decimals: 2, limits: 'upper' }),
  {
    ...numeric('solder_height', { unit: 'mm', nominal: 0.12, sd: 0.008, decimals: 3, limits: 'both' }),
    typed: false,
    incapable: true,
  },
  numeric('board_temp', { unit: 'degC', nominal: 38, sd: 1.2, decimals: 1, limits: 'upper' }),
  { ...numeric('test_time', { unit: 's', nominal: 0, sd: 0, decimals: 2, limits: 'none' }), kind: 'cycle' },
  passfail('firmware_check'),
  numeric('insulation_resistance', { unit: 'MOhm', nominal: 520, sd: 25, decimals: 0, limits: 'lower' }),
  numeric('rf_tx_power', { unit: 'dBm', nominal: 14, sd: 0.6, decimals: 2, limits: 'both' }),
  numeric('vcc_5v0', { unit: 'V', nominal: 5, sd: 0.03, decimals: 3, limits: 'both' }),
  numeric('active_current', { unit: 'mA', nominal: 310, sd: 8, decimals: 1, limits: 'both' }),
  numeric('leakage_current', { unit: 'mA', nominal: 0.02, sd: 0.004, decimals: 4, limits: 'upper' }),
  numeric('paste_volume', { unit: '%', nominal: 100, sd: 5, decimals: 1, limits: 'both' }),
  numeric('contact_resistance', { unit: 'mOhm', nominal: 25, sd: 2, decimals: 2, limits: 'upper' }),
  numeric('clock_freq', { unit: 'Hz', nominal: 32768, sd: 0.5, decimals: 2, limits: 'both' }),
  passfail('barcode_match'),
  numeric('label_weight', { unit: 'g', nominal: 12.5, sd: 0.2, decimals: 2, limits: 'lower' }),
  numeric('flatness', { unit: 'um', nominal: 40, sd: 6, decimals: 1, limits: 'upper' }),
  numeric('seal_pressure', { unit: 'kPa', nominal: 101, sd: 0.8, decimals: 2, limits: 'both' }),
  numeric('fan_speed', { unit: 'rpm', nominal: 4200, sd: 60, decimals: 0, limits: 'both' }),
  {
    ...numeric('ambient_humidity', { unit: '%', nominal: 45, sd: 3, decimals: 1, limits: 'none' }),
    typed: false,
  },
  numeric('vcore_1v8', { unit: 'V', nominal: 1.8, sd: 0.01, decimals: 3, limits: 'both' }),
  numeric('torque', { unit: 'Nm', nominal: 1.2, sd: 0.05, decimals: 3, limits: 'both' }),
];

const EXOTIC_NAME = 'Temperatur "Gehäuse" \\ Zone\n2';

// A capable characteristic has its limits 5.5 to 6.5 sd from nominal: Pp 1.83 to 2.17 without
// drift, and at least 1.25 with the strongest drift (1.5 sd), so a healthy plant's Ppk is clearly
// above 1.33. The one incapable shape (solder_height) has ±3 sd and explains failures.
function limitsOf(base: BaseSpec, seed: number, index: number) {
  if (base.kind !== 'numeric' || base.limits === 'none') return { lower: null, upper: null };
  const width = base.sd * (base.incapable ? 3 : 5.5 + uniform(seed, Purpose.measure, index, 1));
  return {
    lower: base.limits === 'upper' ? null : base.nominal - width,
    upper: base.limits === 'lower' ? null : base.nominal + width,
  };
}

/** How a catalog is built: escaping-hostile names, the realistic plant's behaviours. */
interface CatalogKind {
  readonly exotic: boolean;
  readonly realistic?: boolean;
}

function specAt(seed: number, index: number, kind: CatalogKind): MeasurementSpec {
  const { exotic } = kind;
  const base = BASE[index % BASE.length]!;
  const round = Math.floor(index / BASE.length);
  // Repeated rounds reuse a shape under a new name with a shifted nominal, so values differ.
  const scale = round === 0 ? 1 : 0.8 + 0.4 * uniform(seed, Purpose.measure, index, 0);
  const scaled = { ...base, nominal: base.nominal * scale, sd: base.sd * scale };
  let name = round === 0 ? base.name : `${base.name}_${round + 1}`;
  if (exotic && index === 3) name = EXOTIC_NAME;
  const { lower, upper } = limitsOf(scaled, seed, index);
  const spec: MeasurementSpec = {
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
    incapable: base.incapable === true,
  };
  const behaviour = kind.realistic ? REALISTIC_BEHAVIOUR[base.name] : undefined;
  if (behaviour !== undefined) {
    // Stationary: the realistic plant's slow changes are its autocorrelation, not a sinusoid.
    spec.driftAmp = 0;
    spec.behaviour = behaviour;
  }
  return spec;
}

/** The catalog of measurement names for a plant; deterministic from the seed. */
export function measurementCatalog(seed: number, count: number, kind: CatalogKind): MeasurementSpec[] {
  return Array.from({ length: count }, (_, i) => specAt(seed, i, kind));
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
  /** 1-based slot of the visit, 0 without one (the realistic plant's slot offsets). */
  slot?: number;
  /** Hash of the unit's product name (the realistic plant's product nominals). */
  productHash?: number;
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
  let value: number;
  let noise: number;
  if (spec.behaviour === undefined) {
    const offset = 0.3 * spec.sd * gaussian(ctx.seed, Purpose.value, ctx.stationHash, spec.nameHash);
    const drift =
      spec.driftAmp *
      spec.sd *
      Math.sin((2 * Math.PI * ctx.timeMs) / spec.driftPeriodMs + spec.driftPhase + (ctx.stationHash % 7));
    noise = gaussian(h);
    value = spec.nominal + offset + drift + spec.sd * noise;
  } else {
    // The realistic plant: offsets plus AR(1) noise of the name's shape.
    const reading = {
      seed: ctx.seed,
      stationHash: ctx.stationHash,
      nameHash: spec.nameHash,
      unitIndex: ctx.visit[1],
      attempt: ctx.visit[3],
      slot: ctx.slot ?? 0,
      productHash: ctx.productHash ?? 0,
    };
    noise = realisticNoise(spec.behaviour, reading);
    value = spec.nominal + spec.sd * (realisticOffset(spec.behaviour, reading) + noise);
  }
  if (ctx.events !== undefined) {
    const injected = measurementEffect(ctx.events, spec.name, ctx.timeMs);
    value += spec.sd * (injected.sigmas + (injected.factor - 1) * noise);
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
function canExplainFailure(spec: MeasurementSpec): boolean {
  return spec.kind === 'passfail' || spec.lower !== null || spec.upper !== null;
}

/**
 * Indexes of the measurements a failing visit points at: pass/fail tests and incapable ones, else
 * any limited one. Blaming a capable one for 1-8 % of visits would put that share out of spec,
 * which no capable process does (Ppk 1.33 is 63 ppm).
 */
export function failureExplainers(measures: readonly MeasurementSpec[]): number[] {
  const all = measures.flatMap((m, i) => (canExplainFailure(m) ? [i] : []));
  const likely = all.filter((i) => measures[i]!.kind === 'passfail' || measures[i]!.incapable);
  return likely.length > 0 ? likely : all;
}
