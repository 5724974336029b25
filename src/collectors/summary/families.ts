/** Summary gauges: one family per field and level, so that no sum() mixes a line with its stations. */
import type { Family, FamilyDesc, LabelSet, Sample } from '../../exposition/model.ts';
import type { Entity, Level } from '../../model/topology.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';

interface FieldDesc {
  readonly key: keyof StationSummary;
  readonly wire: string;
  readonly suffix: string;
  readonly what: string;
}

/** The ten summary fields: seven counts in units, three ratios 0-1. */
export const SUMMARY_FIELDS: readonly FieldDesc[] = (
  [
    ['uniqueUnits', 'unique_units', 'unique_units', 'Distinct units seen'],
    ['totalInput', 'total_input', 'input_units', 'Unit input records (arrivals, retries included)'],
    ['uniqueInput', 'unique_input', 'unique_input_units', 'Distinct units with an input record'],
    ['totalOutput', 'total_output', 'output_units', 'Unit output records (results, retries included)'],
    ['uniqueOutput', 'unique_output', 'unique_output_units', 'Distinct units with an output record'],
    ['firstPass', 'first_pass', 'first_pass_units', 'Units that passed on the first attempt'],
    ['finalPass', 'final_pass', 'final_pass_units', 'Units whose final result is pass'],
    ['firstPassYield', 'first_pass_yield', 'first_pass_yield_ratio', 'First-pass yield (0-1)'],
    ['finalYield', 'final_yield', 'final_yield_ratio', 'Final yield (0-1)'],
    ['retryRate', 'retry_rate', 'retry_ratio', 'Retry rate (0-1)'],
  ] as const
).map(([key, wire, suffix, what]) => ({ key, wire, suffix, what }));

const LEVEL_PREFIX: Record<Level, string> = {
  station: 'station_',
  group: 'station_group_',
  line: 'station_line_',
  site: 'station_site_',
};

const LEVEL_LABELS: Record<Level, readonly string[]> = {
  station: ['site', 'line', 'station', 'station_id', 'group', 'window'],
  group: ['site', 'line', 'group', 'window'],
  line: ['site', 'line', 'window'],
  site: ['site', 'window'],
};

const LEVEL_SCOPE: Record<Level, string> = {
  station: 'at the station',
  group: 'across the stations of the group (parallel stations of one step)',
  line: 'across all stations of the line',
  site: 'across all stations of the site',
};

/** All summary family descriptions, for every level. */
export function summaryDescs(level: Level): FamilyDesc[] {
  return SUMMARY_FIELDS.map((f) => ({
    name: LEVEL_PREFIX[level] + f.suffix,
    kind: 'gauge' as const,
    labels: LEVEL_LABELS[level],
    help: `${f.what} ${LEVEL_SCOPE[level]} over the window, from the upstream GET /station/summary field ${f.wire}; refreshed every summary interval.`,
  }));
}

/** One summary answer for one entity and window. */
export interface SummaryResult {
  readonly level: Level;
  /** The entity's labels with `window` appended. */
  readonly labels: LabelSet;
  readonly summary: StationSummary;
}

/** Results of one slice of {@link summaryFamilies}: ten fields each, 4,000 samples a slice at most. */
const RESULTS_PER_SLICE = 400;

/** A field the upstream did not send is left out. In slices: 3,300 results took 50 ms in one piece. */
export async function summaryFamilies(
  levels: readonly Level[],
  results: readonly SummaryResult[],
  yielder: LoopYielder,
): Promise<Family[]> {
  const families: Family[] = [];
  for (const level of levels) {
    const descs = summaryDescs(level);
    const perField: Sample[][] = SUMMARY_FIELDS.map(() => []);
    const ofLevel = results.filter((r) => r.level === level);
    await yielder.forEachSlice(ofLevel, RESULTS_PER_SLICE, (slice) => {
      for (const r of slice) {
        SUMMARY_FIELDS.forEach((field, i) => {
          const value = r.summary[field.key];
          if (value !== undefined) perField[i]?.push({ labels: r.labels, value });
        });
      }
    });
    perField.forEach((samples, i) => {
      families.push({ desc: descs[i]!, samples });
    });
  }
  return families;
}

/** Levels whose entities hold several stations, and so have a station coverage. */
type GroupLevel = Exclude<Level, 'station'>;
const GROUP_LEVELS: readonly GroupLevel[] = ['group', 'line', 'site'];

/** The coverage families of one level: total stations, and stations its summaries cover. */
export function coverageDescs(level: Level): FamilyDesc[] {
  if (level === 'station') return [];
  const labels = LEVEL_LABELS[level].filter((l) => l !== 'window');
  return [
    {
      name: `${LEVEL_PREFIX[level]}stations`,
      kind: 'gauge',
      labels,
      help: `Stations of each ${level} in the upstream GET /sites hierarchy, exported or not; refreshed every summary interval.`,
    },
    {
      name: `${LEVEL_PREFIX[level]}covered_stations`,
      kind: 'gauge',
      labels,
      help: `Stations the ${level}'s summaries cover: all of its stations, or only the exported ones with summary.aggregate_over: exported_stations, less any the upstream refuses (403) to this token. Less than ${LEVEL_PREFIX[level]}stations means the ${level} summaries describe part of the ${level}; refreshed every summary interval.`,
    },
  ];
}

/** Total and covered stations of every entity of the configured levels that hold several stations. */
export function coverageFamilies(
  levels: readonly Level[],
  entities: (level: Level) => readonly Entity[],
  accessible: (stationId: string) => boolean = () => true,
): Family[] {
  const families: Family[] = [];
  for (const level of GROUP_LEVELS.filter((l) => levels.includes(l))) {
    const [total, covered] = coverageDescs(level);
    const ofLevel = entities(level);
    families.push(
      { desc: total!, samples: ofLevel.map((e) => ({ labels: e.labels, value: e.allStationIds.length })) },
      {
        desc: covered!,
        samples: ofLevel.map((e) => ({ labels: e.labels, value: e.stationIds.filter(accessible).length })),
      },
    );
  }
  return families;
}
