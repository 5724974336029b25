/**
 * What the summary collector costs: every field per entity, level and window (an upper bound),
 * requests per distinct station set, and drops: group, then station summaries, never line or site.
 */

import type { CollectorCosts, DropRank, PlantCounts, PlantView, SeriesRow } from '../../model/plan.ts';
import type { Level } from '../../model/topology.ts';
import { summaryDescs } from './families.ts';
import { entitiesOf } from './plan.ts';

/**
 * Distinct summary requests one window costs at each level: entities of a level with the same
 * station list (e.g. groups that are the whole line) share one request, keyed like the summary poll.
 */
export function summaryRequestsPerLevel(
  topology: NonNullable<PlantView['topology']>,
  levels: readonly Level[],
): Partial<Record<Level, number>> {
  const out: Partial<Record<Level, number>> = {};
  for (const level of levels) {
    out[level] = new Set(entitiesOf(topology, level).map((e) => e.stationIds.join(','))).size;
  }
  return out;
}

function entities(counts: PlantCounts): Record<Level, number> {
  return { station: counts.stations, group: counts.groups, line: counts.lines, site: counts.sites };
}

/** Summary fields, least used first, as the budget drops them within a level. */
const FIELDS = [
  'retry_ratio',
  'unique_input_units',
  'unique_output_units',
  'input_units',
  'output_units',
  'unique_units',
  'final_pass_units',
  'first_pass_units',
  'final_yield_ratio',
  'first_pass_yield_ratio',
];

const drops = (prefix: string, from: number): DropRank[] =>
  FIELDS.map((field, i) => ({ family: prefix + field, priority: from + 10 * i }));

export const summaryCosts: CollectorCosts = {
  series(config, counts) {
    const n = entities(counts);
    const windows = config.windows.length;
    const rows: SeriesRow[] = [];
    for (const level of config.summary.levels) {
      for (const d of summaryDescs(level))
        rows.push({ collector: 'summary', family: d.name, series: n[level] * windows });
    }
    for (const level of config.summary.levels) {
      if (level === 'station') continue;
      rows.push({
        collector: 'summary',
        family: `station_${level}_stations, _covered_stations`,
        series: 2 * n[level],
      });
    }
    return rows;
  },
  requests(config, plant) {
    const { levels } = config.summary;
    const requestsPerLevel = plant.topology
      ? summaryRequestsPerLevel(plant.topology, levels)
      : Object.fromEntries(levels.map((l) => [l, entities(plant.counts)[l]]));
    return {
      windowed: { collector: 'summary', requestsPerLevel, levels, baseIntervalMs: config.summary.intervalMs },
    };
  },
  drops: [...drops('station_group_', 300), ...drops('station_', 400)],
};
