/**
 * Summary families: one family per level and field, samples in the order of the results, a
 * field the upstream did not send left out; the same whether the results fit one slice or many.
 */
import { describe, expect, it } from 'vitest';
import {
  SUMMARY_FIELDS,
  type SummaryResult,
  summaryFamilies,
} from '../../../src/collectors/summary/families.ts';
import { LabelSet } from '../../../src/exposition/model.ts';
import type { Level } from '../../../src/model/topology.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';

/** A result whose fields are all sent but `finalYield`, which only every third station has. */
function result(level: Level, i: number): SummaryResult {
  return {
    level,
    labels: LabelSet.of({ site: 'Plant', station: `S${i}`, window: '15m' }),
    summary: {
      uniqueUnits: i,
      totalInput: i + 1,
      uniqueInput: i,
      totalOutput: i,
      uniqueOutput: i,
      firstPass: i,
      finalPass: i,
      firstPassYield: 0.5,
      retryRate: 0.25,
      ...(i % 3 === 0 ? { finalYield: i / 10_000 } : {}),
    },
  };
}

describe('summaryFamilies', () => {
  it('keeps the results in order per level and field across slices, leaving out unsent fields', async () => {
    const stations = Array.from({ length: 1_234 }, (_, i) => result('station', i));
    const lines = Array.from({ length: 7 }, (_, i) => result('line', i));
    // Levels interleaved, as the slots of a poll come.
    const results = [...stations.slice(0, 600), ...lines, ...stations.slice(600)];
    const families = await summaryFamilies(['station', 'line'], results, new LoopYielder());
    expect(families).toHaveLength(2 * SUMMARY_FIELDS.length);
    const byName = new Map(families.map((f) => [f.desc.name, f.samples]));
    const inputs = byName.get('station_input_units');
    expect(inputs?.map((s) => s.value)).toEqual(stations.map((_, i) => i + 1));
    expect(inputs?.map((s) => s.labels)).toEqual(stations.map((r) => r.labels));
    const finalYield = [...byName].find(([name]) => name === 'station_final_yield_ratio')?.[1];
    expect(finalYield?.map((s) => s.value)).toEqual(
      stations.flatMap((_, i) => (i % 3 === 0 ? [i / 10_000] : [])),
    );
    expect(byName.get('station_line_input_units')?.map((s) => s.value)).toEqual(lines.map((_, i) => i + 1));
  });
});
