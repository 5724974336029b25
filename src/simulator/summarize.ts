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
  const uniqueOutput = outputs.size;
  const scale = yieldScale === 'percent' ? 100 : 1;
  return {
    unique_units: all.size,
    total_input: totalInput,
    unique_input: inputs.size,
    total_output: totalOutput,
    unique_output: uniqueOutput,
    first_pass: firstPass,
    final_pass: finalPass,
    first_pass_yield: ratio(firstPass, uniqueOutput, scale),
    final_yield: ratio(finalPass, uniqueOutput, scale),
    retry_rate: ratio(totalOutput - stationSerials.size, totalOutput, scale),
  };
}
