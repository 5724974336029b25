/**
 * The realistic plant's measurement model: per name a distribution and a stationary AR(1)
 * (docs/simulator.md, "The realistic plant", gives each choice's source), per product a nominal,
 * per slot an offset. Values stay counter-based: a reading's AR(1) value sums hashed innovations
 * of the earlier unit slots, so any window is generated on its own.
 */
import { HashVariates, hashInts, hashString, Purpose, uniform } from './random.ts';
import { type Shape, standardDraw } from './shapes.ts';

/** How one measurement name behaves on the realistic plant. */
export interface RealisticBehaviour {
  /** The standardised shape of its noise (mean 0, variance 1, times the name's sd). */
  readonly shape: Shape;
  /** Lag-1 autocorrelation between readings of consecutive unit slots at one station. */
  readonly phi: number;
  /** Products' nominals lie within ± this many sd of the name's nominal (0: one nominal for all). */
  readonly productSpread: number;
}

const NORMAL: Shape = { kind: 'normal' };

/** Per base name (`idle_current_2` behaves as its base); cycle times and pass/fail tests have none. */
export const REALISTIC_BEHAVIOUR: Readonly<Record<string, RealisticBehaviour>> = {
  vcc_3v3: { shape: NORMAL, phi: 0.05, productSpread: 0 },
  idle_current: { shape: { kind: 'gamma', skewness: 0.6 }, phi: 0.15, productSpread: 1.5 },
  solder_height: { shape: NORMAL, phi: 0.2, productSpread: 0 },
  board_temp: { shape: NORMAL, phi: 0.3, productSpread: 1 },
  insulation_resistance: { shape: { kind: 'lognormal', sigma: 0.3 }, phi: 0.1, productSpread: 1 },
  rf_tx_power: { shape: NORMAL, phi: 0.15, productSpread: 1.5 },
  vcc_5v0: { shape: NORMAL, phi: 0.05, productSpread: 0 },
  active_current: { shape: NORMAL, phi: 0.1, productSpread: 1.5 },
  leakage_current: { shape: { kind: 'gamma', skewness: 1 }, phi: 0.05, productSpread: 0.5 },
  paste_volume: { shape: NORMAL, phi: 0.2, productSpread: 0.5 },
  contact_resistance: { shape: { kind: 'gamma', skewness: 1.5 }, phi: 0.25, productSpread: 0 },
  clock_freq: { shape: NORMAL, phi: 0.1, productSpread: 0 },
  label_weight: { shape: NORMAL, phi: 0, productSpread: 1 },
  flatness: { shape: { kind: 'gamma', skewness: 0.8 }, phi: 0.05, productSpread: 0.5 },
  seal_pressure: { shape: NORMAL, phi: 0.2, productSpread: 0 },
  fan_speed: { shape: NORMAL, phi: 0.05, productSpread: 1 },
  ambient_humidity: { shape: NORMAL, phi: 0.3, productSpread: 0 },
  vcore_1v8: { shape: NORMAL, phi: 0, productSpread: 0 },
  torque: { shape: { kind: 't', df: 5 }, phi: 0, productSpread: 1 },
};

/** A station's mean offset per name, in sd: fixtures and instruments differ a little. */
const STATION_OFFSET_SD = 0.3;
/** A slot's mean offset per name within its station, in sd: the nests of one fixture differ less. */
const SLOT_OFFSET_SD = 0.15;

/** Where a reading sits: everything its value depends on besides the name. */
export interface Reading {
  readonly seed: number;
  readonly stationHash: number;
  readonly nameHash: number;
  /** Consecutive units are consecutive steps of the AR(1). */
  readonly unitIndex: number;
  /** A retest reads the same fixture state with a fresh current innovation. */
  readonly attempt: number;
  /** 1-based slot, or 0 for a station without slots. */
  readonly slot: number;
  readonly productHash: number;
}

const variates = new HashVariates(0);

/** Innovations weighing less (φ^k) add under 1e-8 of the variance; cutting them halves the work. */
const LEAST_WEIGHT = 1e-4;

/** The standardised noise of a reading: AR(1) of its name's phi over innovations of its shape. */
export function realisticNoise(b: RealisticBehaviour, r: Reading): number {
  const innovation = (lag: number) =>
    standardDraw(
      b.shape,
      variates.reset(
        hashInts(
          r.seed,
          Purpose.noise,
          r.stationHash,
          r.nameHash,
          r.unitIndex - lag,
          lag === 0 ? r.attempt : 0,
        ),
      ),
    );
  if (b.phi === 0) return innovation(0);
  let sum = 0;
  let weight = 1;
  let squares = 0;
  for (let lag = 0; weight >= LEAST_WEIGHT; lag++) {
    sum += weight * innovation(lag);
    squares += weight * weight;
    weight *= b.phi;
  }
  // Scaled to variance 1 exactly for the terms kept: ar1At's stationary AR(1), truncated.
  return sum / Math.sqrt(squares);
}

/** A standard normal draw of the given coordinates (exact, unbounded). */
function normalAt(...parts: number[]): number {
  return variates.reset(hashInts(...parts)).normal();
}

/** The mean offset, in sd, of a reading from its name's nominal: product, station and slot. */
export function realisticOffset(b: RealisticBehaviour, r: Reading): number {
  const product =
    b.productSpread === 0
      ? 0
      : b.productSpread * (2 * uniform(Purpose.product, r.productHash, r.nameHash) - 1);
  const station = STATION_OFFSET_SD * normalAt(r.seed, Purpose.value, r.stationHash, r.nameHash);
  const slot =
    r.slot === 0
      ? 0
      : SLOT_OFFSET_SD * normalAt(r.seed, Purpose.slotOffset, r.stationHash, r.nameHash, r.slot);
  return product + station + slot;
}

/**
 * The nominal offset, in sd, of a product for a name (what {@link realisticOffset} adds for it).
 * A property of the product's design, so the same for every seed and line.
 */
export function productOffset(
  b: RealisticBehaviour,
  at: { readonly product: string; readonly name: string },
): number {
  if (b.productSpread === 0) return 0;
  return b.productSpread * (2 * uniform(Purpose.product, hashString(at.product), hashString(at.name)) - 1);
}
