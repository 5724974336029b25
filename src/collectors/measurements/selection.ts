/**
 * Which windowed statistics each window exports (`measurements.statistics`) and whether single-slot
 * stations carry a `slot` label (`measurements.by_slot`): a filter after the statistics.
 */
import type { WindowStatistic } from '../../config/schema.ts';
import { escapeLabelValue, type Family } from '../../exposition/model.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import type { CapabilityMethod } from './capability.ts';
import {
  MEASUREMENT_FAMILIES,
  MeasurementFamilyBuilder,
  type MeasurementResult,
  type StationRecordCounts,
} from './families.ts';

/** Results turned into series between two yields to the event loop (each makes some 30 series). */
const RESULTS_PER_SLICE = 200;

const WINDOWED: Readonly<Record<WindowStatistic, readonly string[]>> = {
  samples: [MEASUREMENT_FAMILIES.samples.name],
  non_numeric: [MEASUREMENT_FAMILIES.nonNumeric.name],
  mean: [MEASUREMENT_FAMILIES.mean.name],
  min: [MEASUREMENT_FAMILIES.min.name],
  max: [MEASUREMENT_FAMILIES.max.name],
  stddev: [MEASUREMENT_FAMILIES.stddev.name],
  out_of_spec: [MEASUREMENT_FAMILIES.outOfSpec.name],
  // The bounds and λ exist only for names whose method is not `normal`: they belong to its Ppk.
  ppk: [
    MEASUREMENT_FAMILIES.ppk.name,
    MEASUREMENT_FAMILIES.ppkLower.name,
    MEASUREMENT_FAMILIES.ppkUpper.name,
    MEASUREMENT_FAMILIES.boxCoxLambda.name,
  ],
  cpk: [MEASUREMENT_FAMILIES.cpk.name],
  pp: [MEASUREMENT_FAMILIES.pp.name],
  cp: [MEASUREMENT_FAMILIES.cp.name],
  attributes: [MEASUREMENT_FAMILIES.attributes.name],
  capability_omitted: [MEASUREMENT_FAMILIES.omitted.name],
  normality: [MEASUREMENT_FAMILIES.adStatistic.name, MEASUREMENT_FAMILIES.adPValue.name],
};

/** `measurements.statistics` and `measurements.by_slot`. */
export interface MeasurementSelection {
  readonly statistics: {
    readonly default: readonly WindowStatistic[];
    readonly windows: ReadonlyMap<string, readonly WindowStatistic[]>;
  };
  readonly bySlot: boolean;
}

/** Windows (by name) that export each windowed family. */
export function windowsPerFamily(
  selection: MeasurementSelection,
  windows: readonly string[],
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>(
    Object.values(WINDOWED).flatMap((names) => names.map((n) => [n, new Set()])),
  );
  for (const window of windows) {
    const stats = selection.statistics.windows.get(window) ?? selection.statistics.default;
    for (const stat of stats) for (const name of WINDOWED[stat]) out.get(name)?.add(window);
  }
  return out;
}

/**
 * Without `by_slot`, a series whose station measured the name in a single slot loses its slot
 * label; names measured in several slots keep it, because merging their statistics across slots
 * would need the records, not the statistics.
 */
function mergeSingleSlots(results: readonly MeasurementResult[]): MeasurementResult[] {
  const slots = new Map<string, number>();
  const key = (r: MeasurementResult) => `${r.station.text}\u0000${r.name}`;
  for (const r of results) slots.set(key(r), (slots.get(key(r)) ?? 0) + 1);
  return results.map((r) => (r.slot !== null && slots.get(key(r)) === 1 ? { ...r, slot: null } : r));
}

/** How {@link selectedFamiliesInTurns} selects the series, and what it adds to them. */
export interface SelectionOptions {
  readonly selection: MeasurementSelection;
  /** In config order. */
  readonly windows: readonly string[];
  readonly stations?: readonly StationRecordCounts[];
  /** For the capability info series. */
  readonly methods?: ReadonlyMap<string, CapabilityMethod>;
}

/** The measurement families with the selection applied, built in slices between yields. */
export async function selectedFamiliesInTurns(
  results: readonly MeasurementResult[],
  { selection, windows, stations = [], methods = new Map() }: SelectionOptions,
  yielder: LoopYielder,
): Promise<Family[]> {
  const builder = new MeasurementFamilyBuilder();
  const merged = selection.bySlot ? results : mergeSingleSlots(results);
  await yielder.forEachSlice(merged, RESULTS_PER_SLICE, (slice) => builder.add(slice));
  const families = builder.families(stations, methods);
  // A family at a time, between yields: filtering 100k series at once blocked the loop for 15 ms
  // on top of the builder's last step.
  const perFamily = windowsPerFamily(selection, windows);
  await yielder.yieldToLoop();
  return yielder.map(families, 1, (f) => selectWindows(f, perFamily, windows));
}

/** Keeps a windowed family's series of the windows that export it. */
function selectWindows(
  f: Family,
  perFamily: ReadonlyMap<string, ReadonlySet<string>>,
  windows: readonly string[],
): Family {
  const kept = perFamily.get(f.desc.name);
  if (kept === undefined || kept.size === windows.length) return f;
  // A windowed series holds exactly one `window="…"` pair; label values are escaped, so an
  // unescaped quote after `window=` can only start that pair.
  const pairs = [...kept].map((w) => `window="${escapeLabelValue(w)}"`);
  const has = (text: string, pair: string) => {
    const i = text.indexOf(pair);
    return (
      i >= 0 &&
      (i === 0 || text[i - 1] === ',') &&
      (i + pair.length === text.length || text[i + pair.length] === ',')
    );
  };
  return { desc: f.desc, samples: f.samples.filter((s) => pairs.some((p) => has(s.labels.text, p))) };
}
