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
export const SUMMARY_FIELDS: readonly FieldDesc[] = [
  { key: 'uniqueUnits', wire: 'unique_units', suffix: 'unique_units', what: 'Distinct units seen' },
  {
    key: 'totalInput',
    wire: 'total_input',
    suffix: 'input_units',
    what: 'Unit input records (arrivals, retries included)',
  },
  {
    key: 'uniqueInput',
    wire: 'unique_input',
    suffix: 'unique_input_units',
    what: 'Distinct units with an input record',
  },
  {
    key: 'totalOutput',
    wire: 'total_output',
    suffix: 'output_units',
    what: 'Unit output records (results, retries included)',
  },
  {
    key: 'uniqueOutput',
    wire: 'unique_output',
    suffix: 'unique_output_units',
    what: 'Distinct units with an output record',
  },
  {
    key: 'firstPass',
    wire: 'first_pass',
    suffix: 'first_pass_units',
    what: 'Units that passed on the first attempt',
  },
  {
    key: 'finalPass',
    wire: 'final_pass',
    suffix: 'final_pass_units',
    what: 'Units whose final result is pass',
  },
  {
    key: 'firstPassYield',
    wire: 'first_pass_yield',
    suffix: 'first_pass_yield_ratio',
    what: 'First-pass yield (0-1)',
  },
  { key: 'finalYield', wire: 'final_yield', suffix: 'final_yield_ratio', what: 'Final yield (0-1)' },
  { key: 'retryRate', wire: 'retry_rate', suffix: 'retry_ratio', what: 'Retry rate (0-1)' },
];

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

const LEVEL_NAME: Record<GroupLevel, string> = { group: 'group', line: 'line', site: 'site' };

/** The coverage families of one level: total stations, and stations its summaries cover. */
export function coverageDescs(level: Level): FamilyDesc[] {
  if (level === 'station') return [];
  const labels = LEVEL_LABELS[level].filter((l) => l !== 'window');
  const what = LEVEL_NAME[level];
  return [
    {
      name: `${LEVEL_PREFIX[level]}stations`,
      kind: 'gauge',
      labels,
      help: `Stations of each ${what} in the upstream GET /sites hierarchy, exported or not; refreshed every summary interval.`,
    },
    {
      name: `${LEVEL_PREFIX[level]}covered_stations`,
      kind: 'gauge',
      labels,
      help: `Stations the ${what}'s summaries cover: all of its stations, or only the exported ones with summary.aggregate_over: exported_stations, less any the upstream refuses (403) to this token. Less than ${LEVEL_PREFIX[level]}stations means the ${what} summaries describe part of the ${what}; refreshed every summary interval.`,
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
