import type { SummaryWire, UnitRecordWire } from './types.ts';

interface SerialOutputs {
  /** Per station: result of the earliest and of the latest output in the window. */
  byStation: Map<string, { first: string | null; last: string | null }>;
}

function ratio(num: number, den: number, scale: number): number {
  return den === 0 ? 0 : (num / den) * scale;
}

/**
 * The station summary of a set of unit records (both directions, one window, any number of
 * stations), with the formulas documented in docs/simulator.md. Records must be sorted by time.
 */
export function summarize(records: readonly UnitRecordWire[], yieldScale: 'ratio' | 'percent'): SummaryWire {
  const all = new Set<string>();
  const inputs = new Set<string>();
  const outputs = new Map<string, SerialOutputs>();
  const stationSerials = new Set<string>();
  let totalInput = 0;
  let totalOutput = 0;
  for (const r of records) {
    all.add(r.unit_serial);
    if (r.direction === 'input') {
      totalInput++;
      inputs.add(r.unit_serial);
      continue;
    }
    totalOutput++;
    stationSerials.add(`${r.station_id}\u0000${r.unit_serial}`);
    const entry = outputs.get(r.unit_serial) ?? { byStation: new Map() };
    const seen = entry.byStation.get(r.station_id);
    if (seen) seen.last = r.result;
    else entry.byStation.set(r.station_id, { first: r.result, last: r.result });
    outputs.set(r.unit_serial, entry);
  }
  let firstPass = 0;
  let finalPass = 0;
  for (const { byStation } of outputs.values()) {
    const visits = [...byStation.values()];
    if (visits.every((v) => v.first === 'pass')) firstPass++;
    if (visits.every((v) => v.last === 'pass')) finalPass++;
  }
  return summaryOfCounts(
    {
      uniqueUnits: all.size,
      totalInput,
      uniqueInput: inputs.size,
      totalOutput,
      uniqueOutput: outputs.size,
      firstPass,
      finalPass,
      stationSerials: stationSerials.size,
    },
    yieldScale,
  );
}

/** The counts behind a summary: serials, records and (station, serial) pairs of output. */
export interface SummaryCounts {
  uniqueUnits: number;
  totalInput: number;
  uniqueInput: number;
  totalOutput: number;
  uniqueOutput: number;
  firstPass: number;
  finalPass: number;
  /** Distinct (station, serial) pairs among the output records. */
  stationSerials: number;
}

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
