import { getOrCreate } from '../util/maps.ts';
import type { SummaryWire, UnitRecordWire } from './types.ts';

function ratio(num: number, den: number, scale: number): number {
  return den === 0 ? 0 : (num / den) * scale;
}

/**
 * The station summary of a set of unit records (both directions, one window, any number of
 * stations), with the formulas documented in docs/simulator.md. Records must be sorted by time.
 */
export function summarize(records: readonly UnitRecordWire[], yieldScale: 'ratio' | 'percent'): SummaryWire {
  const bySerial = new Map<string, UnitTally>();
  for (const r of records) getOrCreate(bySerial, r.unit_serial, () => new UnitTally()).add(r);
  const counts = zeroCounts();
  for (const tally of bySerial.values()) tally.flushInto(counts);
  return summaryOfCounts(counts, yieldScale);
}

/** The counts behind a summary: serials, records and (station, serial) pairs of output. */
export type SummaryCounts = ReturnType<typeof zeroCounts>;

/** The summary of counts, with the ratios as {@link summarize} computes them. */
export function summaryOfCounts(c: SummaryCounts, yieldScale: 'ratio' | 'percent'): SummaryWire {
  const scale = yieldScale === 'percent' ? 100 : 1;
  return {
    unique_units: c.uniqueUnits,
    total_input: c.totalInput,
    unique_input: c.uniqueInput,
    total_output: c.totalOutput,
    unique_output: c.uniqueOutput,
    first_pass: c.firstPass,
    final_pass: c.finalPass,
    first_pass_yield: ratio(c.firstPass, c.uniqueOutput, scale),
    final_yield: ratio(c.finalPass, c.uniqueOutput, scale),
    retry_rate: ratio(c.totalOutput - c.stationSerials, c.totalOutput, scale),
  };
}

/** Counts of no units: what a summary starts from. */
export function zeroCounts() {
  return {
    uniqueUnits: 0,
    totalInput: 0,
    uniqueInput: 0,
    totalOutput: 0,
    uniqueOutput: 0,
    firstPass: 0,
    finalPass: 0,
    /** Distinct (station, serial) pairs among the output records. */
    stationSerials: 0,
  };
}

/** What one unit's records (in time order) add to a summary's counts. */
export class UnitTally {
  #any = false;
  #inputs = 0;
  #outputs = 0;
  /** Per station with an output record: the results of its first and last one. */
  readonly #byStation = new Map<string, { first: string | null; last: string | null }>();

  add(rec: UnitRecordWire): void {
    this.#any = true;
    if (rec.direction === 'input') {
      this.#inputs++;
      return;
    }
    this.#outputs++;
    const seen = this.#byStation.get(rec.station_id);
    if (seen) seen.last = rec.result;
    else this.#byStation.set(rec.station_id, { first: rec.result, last: rec.result });
  }

  /** Adds this unit to `c` and starts over for the next one. */
  flushInto(c: SummaryCounts): void {
    if (this.#any) c.uniqueUnits++;
    c.totalInput += this.#inputs;
    if (this.#inputs > 0) c.uniqueInput++;
    c.totalOutput += this.#outputs;
    if (this.#outputs > 0) {
      c.uniqueOutput++;
      c.stationSerials += this.#byStation.size;
      let first = true;
      let last = true;
      for (const v of this.#byStation.values()) {
        first &&= v.first === 'pass';
        last &&= v.last === 'pass';
      }
      if (first) c.firstPass++;
      if (last) c.finalPass++;
    }
    this.#any = false;
    this.#inputs = 0;
    this.#outputs = 0;
    this.#byStation.clear();
  }
}
