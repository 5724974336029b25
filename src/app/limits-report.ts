/**
 * What `check-config` says about the approved-limits file: entries approved and pending, approved
 * ones that match no chart, and which charts are frozen. Slots come with the data, so charts are
 * counted per station and name here.
 */
import { chartedNames } from '../collectors/measurements/control-families.ts';
import { type ChartLimits, isApproved, loadLimitsFile } from '../config/limits-schema.ts';
import type { Config } from '../config/schema.ts';

/** Lines listed per kind before "and N more". */
const LISTED = 20;

/** What check-config knows of the plant: the discovered stations' ids, or only their count. */
export interface PlantKnown {
  readonly stationIds?: readonly string[];
  readonly stations?: number;
}

/** The report, one line per fact; empty when nothing is charted. */
export async function limitsReport(config: Config, plant: PlantKnown = {}): Promise<string> {
  const control = config.measurements.control;
  if (control.names.length === 0) return '';
  if (control.limitsFile === undefined)
    return '\nApproved limits: none (measurements.control.limits_file is not set): every chart uses its name’s baseline.\n';
  // The config loader validated the file a moment ago: a failure now is a file changed since.
  const file = await loadLimitsFile(control.limitsFile);
  const names = new Set(chartedNames(config));
  const stationIds =
    plant.stationIds === undefined ? undefined : new Set(plant.stationIds.map((id) => id.toLowerCase()));
  const approved = file.charts.filter(isApproved);
  const lines = [
    '',
    `Approved limits: ${file.source}: ${file.charts.length} entries, ${approved.length} approved, ` +
      `${file.charts.length - approved.length} pending approval.`,
  ];
  const indexOf = new Map(file.charts.map((c, i) => [c, i]));
  const pending = file.charts.filter((c) => !isApproved(c));
  lines.push(
    ...section('Pending approval (not used until approved_by and approved_at are set):', pending, () => ''),
  );
  const unmatched = approved
    .map((c) => ({ c, why: mismatch(c, { names, stationIds }) }))
    .filter((u): u is { c: ChartLimits; why: string } => u.why !== undefined);
  lines.push(
    ...section(
      'Approved entries that match no chart:',
      unmatched.map((u) => u.c),
      (c) => `: ${unmatched.find((u) => u.c === c)?.why}`,
    ),
  );
  const matched = approved.filter((c) => !unmatched.some((u) => u.c === c));
  lines.push(...chartsLine(config, { matched, names: names.size, plant, stationIds }));
  return `${lines.join('\n')}\n`;

  function section(title: string, charts: readonly ChartLimits[], why: (c: ChartLimits) => string): string[] {
    if (charts.length === 0) return [];
    const listed = charts
      .slice(0, LISTED)
      .map((c) => `    charts[${indexOf.get(c)}]: ${describe(c)}${why(c)}`);
    const more = charts.length > LISTED ? [`    and ${charts.length - LISTED} more`] : [];
    return [`  ${title}`, ...listed, ...more];
  }
}

/** Why an approved entry matches no chart, or undefined when it can. */
function mismatch(
  c: ChartLimits,
  known: { readonly names: ReadonlySet<string>; readonly stationIds: ReadonlySet<string> | undefined },
): string | undefined {
  if (!known.names.has(c.metric))
    return 'its metric is not charted (measurements.names and measurements.control.names)';
  if (c.product !== null) return 'charts are not kept per product';
  if (known.stationIds !== undefined && !known.stationIds.has(c.station))
    return 'its station is not discovered (or belongs to another shard)';
  return undefined;
}

/** A chart's identity as one line. */
function describe(c: ChartLimits): string {
  const slot = c.slot === null ? '' : `, slot ${c.slot}`;
  const product = c.product === null ? '' : `, product ${c.product}`;
  return `station ${c.station}, metric ${c.metric}${slot}${product}`;
}

/** Frozen and rolling charts, when the stations are known or counted. */
function chartsLine(
  config: Config,
  at: {
    readonly matched: readonly ChartLimits[];
    readonly names: number;
    readonly plant: PlantKnown;
    readonly stationIds: ReadonlySet<string> | undefined;
  },
): string[] {
  const stations = at.stationIds?.size ?? at.plant.stations;
  if (stations === undefined)
    return [
      '  Charts: give --discover or --stations N to see which charts are frozen and which use their baseline.',
    ];
  const kinds = [...new Set(config.measurements.control.names.map((n) => n.baseline.kind))].join(', ');
  const pairs = stations * at.names;
  const frozenPairs = new Set(at.matched.map((c) => `${c.station}\u0000${c.metric}`)).size;
  return [
    `  Charts of ${stations} stations × ${at.names} charted names (${pairs} station-name pairs, a chart per slot the data has):`,
    `    frozen at approved limits: ${at.matched.length} charts, of ${frozenPairs} station-name pairs`,
    `    on their name’s baseline (${kinds}): the other charts; ${Math.max(0, pairs - frozenPairs)} pairs have no approved entry`,
  ];
}
