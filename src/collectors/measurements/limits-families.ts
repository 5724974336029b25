/**
 * Where each chart's limits come from: an info series per chart, and for an approved one its
 * approval time and excluded periods, as values a Grafana annotation can place.
 */
import type { ChartLimits } from '../../config/limits-schema.ts';
import type { FamilyDesc, LabelSet, Sample } from '../../exposition/model.ts';

/** Newest first; a week's study rarely has more assignable causes (the file keeps them all). */
const EXPORTED_EXCLUSIONS = 20;

/** A chart's limits source as exported. */
export interface LimitsSource {
  /** The info series' labels: the chart's, `source`, and `approved_by` when approved. */
  readonly info: LabelSet;
  /** Approval time, Unix seconds; undefined when the chart is not approved. */
  readonly approvedAt: number | undefined;
  /** Each exported exclusion's start (Unix seconds), with the chart's labels and its `cause`. */
  readonly exclusions: readonly Sample[];
}

/** Where a chart's limits come from: an approved entry, or the name's baseline kind. */
type Source = 'approved' | 'rolling' | 'frozen' | 'given';

/** `kind`: the name's baseline, unless approved. File text passes `redact`: /metrics is not masked. */
export function limitsSource(
  labels: LabelSet,
  at: {
    readonly kind: Exclude<Source, 'approved'>;
    readonly approved: ChartLimits | undefined;
    readonly redact: (text: string) => string;
  },
): LimitsSource {
  const a = at.approved;
  if (a === undefined || a.approvedBy === null || a.approvedAtMs === null)
    return { info: labels.with('source', at.kind), approvedAt: undefined, exclusions: [] };
  const newest = [...a.excluded].sort((x, y) => y.fromMs - x.fromMs).slice(0, EXPORTED_EXCLUSIONS);
  const seen = new Set<string>();
  const exclusions: Sample[] = [];
  for (const e of newest) {
    const cause = at.redact(e.cause);
    // Two exclusions of one cause would be one series: the newest stands for both.
    if (seen.has(cause)) continue;
    seen.add(cause);
    exclusions.push({ labels: labels.with('cause', cause), value: e.fromMs / 1000 });
  }
  return {
    info: labels.with('source', 'approved').with('approved_by', at.redact(a.approvedBy)),
    approvedAt: a.approvedAtMs / 1000,
    exclusions,
  };
}

const SERIES = ['site', 'line', 'station', 'station_id', 'group', 'metric', 'slot'];
const FILE = 'the approved-limits file (measurements.control.limits_file)';

/** The families of the limits' source, in exposition order. */
export const LIMITS_SOURCE_FAMILIES = {
  info: {
    name: 'station_measurement_control_limits_info',
    kind: 'gauge',
    labels: [...SERIES, 'source', 'approved_by'],
    help:
      `Always 1, one series per control chart: where its limits come from. source="approved": an approved ` +
      `entry of ${FILE}, frozen (approved_by: who approved it); "rolling": the rolling baseline; "frozen": the ` +
      `baseline period of measurements.control; "given": limits given in measurements.control. Set by the ` +
      `exporter from its config and the file, which it reads again when it changes; refreshed every measurements interval.`,
  },
  approvedAt: {
    name: 'station_measurement_control_limits_approved_timestamp_seconds',
    kind: 'gauge',
    labels: SERIES,
    unit: 'seconds',
    help:
      `Time (Unix seconds) the chart's limits were approved (approved_at of its entry in ${FILE}); for ` +
      `annotations that use the value as their time. Sparse: only charts with approved limits have it.`,
  },
  exclusions: {
    name: 'station_measurement_control_limits_exclusion_timestamp_seconds',
    kind: 'gauge',
    labels: [...SERIES, 'cause'],
    unit: 'seconds',
    help:
      `Start (Unix seconds) of a period or point the approved limits' study excluded, by its assignable ` +
      `cause (the excluded list of the chart's entry in ${FILE}): the newest ${EXPORTED_EXCLUSIONS} causes ` +
      `per chart, the newest exclusion of each; for annotations that use the value as their time. Sparse: ` +
      `only charts with approved limits that excluded something.`,
  },
} as const satisfies Record<string, FamilyDesc>;

/** Adds a chart's source series to the three sample lists. */
export function addLimitsSource(
  into: { readonly info: Sample[]; readonly approvedAt: Sample[]; readonly exclusions: Sample[] },
  s: LimitsSource,
  chartLabels: LabelSet,
): void {
  into.info.push({ labels: s.info, value: 1 });
  if (s.approvedAt !== undefined) into.approvedAt.push({ labels: chartLabels, value: s.approvedAt });
  for (const e of s.exclusions) into.exclusions.push(e);
}
