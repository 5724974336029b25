/** What the realistic plant was designed to be: ground truth for benches and tests that judge detectors. */
import type { LineStop } from './line-stops.ts';
import type { PlantModel } from './plant.ts';
import type { RealisticRates } from './realistic-line.ts';

/** A realistic line as designed. */
export interface RealisticLineDesign {
  readonly products: readonly string[];
  /** Each product's share of the line's units (same order; they sum to 1). */
  readonly productShares: readonly number[];
  /** Units per lot, or null when products are interleaved unit by unit. */
  readonly lotUnits: number | null;
  /** The long-run final yield of the line (before any injected fault). */
  readonly finalYield: number;
}

/** The design of a realistic plant model, or null for a textbook one. */
export function realisticDesign(model: PlantModel) {
  const first = model.lines[0];
  if (first === undefined || first.realistic === undefined) return null;
  const lineOf = (lineId: string) => {
    const st = [...model.stationsById.values()].find((s) => s.lineId === lineId.toLowerCase());
    if (st?.line.realistic === undefined) throw new Error(`no realistic line ${lineId}`);
    return { line: st.line, realistic: st.line.realistic };
  };
  return {
    /** The line's design; throws for an unknown line. */
    line: (lineId: string): RealisticLineDesign => {
      const { line, realistic } = lineOf(lineId);
      const w = realistic.cumulativeWeights;
      return {
        products: [...line.products],
        productShares: w.map((c, i) => c - (i === 0 ? 0 : w[i - 1]!)),
        lotUnits: realistic.lotUnits,
        finalYield: realistic.designFinalYield,
      };
    },
    /** The station's failure rates, retry ratio and scrap share; throws for an unknown station. */
    station: (stationId: string): RealisticRates => {
      const rates = model.stationsById.get(stationId.toLowerCase())?.rates;
      if (rates === undefined) throw new Error(`no realistic station ${stationId}`);
      return rates;
    },
    /** The line's stops overlapping [from, to), in time order; none when stops are off. */
    stopsBetween: (lineId: string, from: Date, to: Date): LineStop[] =>
      lineOf(lineId).realistic.stops?.stopsBetween(from.getTime(), to.getTime()) ?? [],
  };
}

/** The realistic plant's design. */
export type RealisticDesign = NonNullable<ReturnType<typeof realisticDesign>>;
