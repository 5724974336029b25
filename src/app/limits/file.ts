/**
 * The approved-limits file as the `limits` commands read and write it (docs/measurements.md
 * "Phase I study"), in its own field names. Reading goes through the exporter's loader and what is
 * written passes it, so these commands accept and write exactly what the exporter accepts.
 */
import { Document, isPair, isScalar, visit } from 'yaml';
import { type ChartLimits, loadLimitsFile, parseLimits } from '../../config/limits-schema.ts';

/** One chart's entry, as {@link readLimitsFile} gives it. Times are RFC 3339 strings with an offset. */
export type LimitsEntry = ReturnType<typeof writtenEntry>;

/** The whole file. */
export interface LimitsFile {
  readonly version: 1;
  readonly charts: readonly LimitsEntry[];
}

/** A chart's key: station, metric, slot, product. */
export function chartKey(e: Pick<LimitsEntry, 'station' | 'metric' | 'slot' | 'product'>): string {
  return [e.station.toLowerCase(), e.metric, e.slot ?? '', e.product ?? ''].join('\u0000');
}

/** An RFC 3339 time in UTC, without milliseconds when they are 0. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** The span `[fromMs, toMs)` an exclusion leaves out (one point: its millisecond). */
export function exclusionSpan(e: LimitsEntry['excluded'][number]): { fromMs: number; toMs: number } {
  if (e.at !== undefined) {
    const at = Date.parse(e.at);
    return { fromMs: at, toMs: at + 1 };
  }
  return { fromMs: Date.parse(e.from), toMs: Date.parse(e.to) };
}

/**
 * A loaded entry in the file's own field names, times in UTC. `study` is absent in an entry
 * written by hand from a control plan. The loader marks a point by `fromMs === toMs`.
 */
function writtenEntry(c: ChartLimits) {
  const { study } = c;
  return {
    station: c.station,
    metric: c.metric,
    slot: c.slot,
    product: c.product,
    center: c.center,
    sigma: c.sigma,
    ucl: c.ucl,
    lcl: c.lcl,
    ...(study === null
      ? {}
      : {
          study: {
            from: rfc3339(study.fromMs),
            to: rfc3339(study.toMs),
            points: study.points,
            excluded_points: study.excludedPoints,
          },
        }),
    ...(c.calibration === null
      ? {}
      : {
          calibration: {
            sd: c.calibration.sigma,
            phi: c.calibration.phi,
            skewness: c.calibration.skewness,
            excess_kurtosis: c.calibration.excessKurtosis,
          },
        }),
    excluded: c.excluded.map((e) =>
      e.fromMs === e.toMs
        ? { at: rfc3339(e.fromMs), cause: e.cause }
        : { from: rfc3339(e.fromMs), to: rfc3339(e.toMs), cause: e.cause },
    ),
    approved_by: c.approvedBy,
    approved_at: c.approvedAtMs === null ? null : rfc3339(c.approvedAtMs),
    reason: c.reason,
  };
}

/** Reads a limits file with the exporter's loader. */
export async function readLimitsFile(file: string): Promise<LimitsFile> {
  return { version: 1, charts: (await loadLimitsFile(file)).charts.map(writtenEntry) };
}

/** The file as YAML, station ids quoted (an id of digits only would read back as a number). */
export function limitsYaml(file: LimitsFile, source = 'limits file'): string {
  const doc = new Document(file);
  visit(doc, {
    Pair(_, pair) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === 'station' && isScalar(pair.value))
        pair.value.type = 'QUOTE_DOUBLE';
    },
  });
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: true, nullStr: 'null' });
  // What is written must load: checked by the loader itself before it reaches a disk.
  parseLimits(text, source);
  return text;
}
