/** The configured targets of every line and station, so that alerts compare each with its own. */
import type { Targets } from '../../config/targets-schema.ts';
import type { Family, FamilyDesc, LabelSet } from '../../exposition/model.ts';

interface TargetField {
  readonly key: keyof Targets;
  readonly suffix: string;
  readonly wire: string;
  readonly what: string;
}

const FIELDS: readonly TargetField[] = [
  {
    key: 'firstPassYield',
    suffix: 'first_pass_yield_ratio',
    wire: 'first_pass_yield',
    what: 'Target first-pass yield (0-1)',
  },
  { key: 'finalYield', suffix: 'final_yield_ratio', wire: 'final_yield', what: 'Target final yield (0-1)' },
  {
    key: 'retryRate',
    suffix: 'retry_ratio',
    wire: 'retry_rate',
    what: 'Highest acceptable retry ratio (0-1)',
  },
];

const LEVELS = {
  line: { prefix: 'station_line_target_', labels: ['site', 'line'], of: 'each exported line' },
  station: {
    prefix: 'station_target_',
    labels: ['site', 'line', 'station', 'station_id', 'group'],
    of: 'each exported station',
  },
} as const;

type TargetLevel = keyof typeof LEVELS;

function descs(level: TargetLevel): FamilyDesc[] {
  const l = LEVELS[level];
  return FIELDS.map((f) => ({
    name: l.prefix + f.suffix,
    kind: 'gauge' as const,
    labels: l.labels,
    help: `${f.what} of ${l.of}, from the exporter config targets (the first matching rule setting ${f.wire}, else targets.default); refreshed every targets interval.`,
  }));
}

/** Every family the targets collector exports. */
export const TARGET_DESCS: readonly FamilyDesc[] = [...descs('line'), ...descs('station')];

/** One line or station and its targets. */
export interface TargetRow {
  readonly labels: LabelSet;
  readonly targets: Targets;
}

/** The target families of lines and stations. */
export function targetFamilies(lines: readonly TargetRow[], stations: readonly TargetRow[]): Family[] {
  const of = (level: TargetLevel, rows: readonly TargetRow[]) =>
    descs(level).map((desc, i) => ({
      desc,
      samples: rows.map((r) => ({ labels: r.labels, value: r.targets[FIELDS[i]!.key] })),
    }));
  return [...of('line', lines), ...of('station', stations)];
}
