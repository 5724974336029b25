/**
 * The approved-limits file as the `limits` commands read and write it (YAML, docs/measurements.md
 * "Phase I study"): one entry per chart with its limits, the study they came from, the excluded
 * points with their assignable cause, and the approval, in the file's own field names. What is
 * read and what is written pass the exporter's loader first (src/config/limits-schema.ts), so
 * these commands accept and write exactly what the exporter accepts.
 */
import { readFile } from 'node:fs/promises';
import { Document, isPair, isScalar, parse, visit } from 'yaml';
import { parseLimits } from '../../config/limits-schema.ts';

/** One exclusion: a time span `[from, to)` or one point `at`, with its assignable cause. */
export type Exclusion =
  | { readonly from: string; readonly to: string; readonly cause: string }
  | { readonly at: string; readonly cause: string };

/** One chart's entry. Times are RFC 3339 strings with an offset. */
export interface LimitsEntry {
  readonly station: string;
  readonly metric: string;
  readonly slot: string | null;
  readonly product: string | null;
  readonly center: number;
  readonly sigma: number;
  readonly ucl: number;
  readonly lcl: number;
  /** The study the numbers came from; absent in an entry written by hand from a control plan. */
  readonly study?: {
    readonly from: string;
    readonly to: string;
    readonly points: number;
    readonly excluded_points: number;
  };
  /** The data's shape the study measured, which calibrates the detectors (docs/measurements.md). */
  readonly calibration?: StudyCalibration;
  readonly excluded: readonly Exclusion[];
  readonly approved_by: string | null;
  readonly approved_at: string | null;
  readonly reason: string | null;
}

/** An entry's `calibration`, in the file's field names; an absent field means none. */
export interface StudyCalibration {
  readonly sd?: number;
  readonly phi?: number;
  readonly skewness?: number;
  readonly excess_kurtosis?: number;
}

/** The whole file. */
export interface LimitsFile {
  readonly version: 1;
  readonly charts: readonly LimitsEntry[];
}

/** A file that cannot be used; the message names the file and the path inside it. */
export class LimitsFileError extends Error {
  override readonly name = 'LimitsFileError';
}

/** A chart's key: station, metric, slot, product. */
export function chartKey(e: Pick<LimitsEntry, 'station' | 'metric' | 'slot' | 'product'>): string {
  return [e.station.toLowerCase(), e.metric, e.slot ?? '', e.product ?? ''].join('\u0000');
}

// An offset is required, as for the config's times.
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Unix ms of an RFC 3339 time, NaN when it is none. */
function timeOf(text: string): number {
  return TIME_RE.test(text) ? Date.parse(text) : Number.NaN;
}

/** An RFC 3339 time in UTC, without milliseconds when they are 0. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** The span `[fromMs, toMs)` an exclusion leaves out (one point: its millisecond). */
export function exclusionSpan(e: Exclusion): { fromMs: number; toMs: number } {
  if ('at' in e) {
    const at = timeOf(e.at);
    return { fromMs: at, toMs: at + 1 };
  }
  return { fromMs: timeOf(e.from), toMs: timeOf(e.to) };
}

type Problems = string[];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown, at: string, problems: Problems, opts: { nullable: boolean }): string | null {
  if (v === null || v === undefined) {
    if (!opts.nullable) problems.push(`${at}: is required`);
    return null;
  }
  if (typeof v !== 'string' || v.trim() === '') {
    problems.push(`${at}: must be a non-empty string`);
    return null;
  }
  return v;
}

function time(v: unknown, at: string, problems: Problems): string {
  if (typeof v !== 'string' || Number.isNaN(timeOf(v))) {
    problems.push(`${at}: must be an RFC 3339 time with an offset, such as 2026-11-01T00:00:00Z`);
    return '';
  }
  return v;
}

function num(v: unknown, at: string, problems: Problems): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    problems.push(`${at}: must be a number`);
    return Number.NaN;
  }
  return v;
}

function exclusionOf(v: unknown, at: string, problems: Problems): Exclusion | undefined {
  if (!isObject(v)) {
    problems.push(`${at}: must be { from, to, cause } or { at, cause }`);
    return undefined;
  }
  const cause = text(v.cause, `${at}.cause`, problems, { nullable: false }) ?? '';
  if ('at' in v) return { at: time(v.at, `${at}.at`, problems), cause };
  const from = time(v.from, `${at}.from`, problems);
  const to = time(v.to, `${at}.to`, problems);
  if (from !== '' && to !== '' && !(timeOf(from) < timeOf(to))) problems.push(`${at}.to: must be after from`);
  return { from, to, cause };
}

function studyOf(v: unknown, at: string, problems: Problems): LimitsEntry['study'] {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push(`${at}: must be { from, to, points, excluded_points }`);
    return undefined;
  }
  const from = time(v.from, `${at}.from`, problems);
  const to = time(v.to, `${at}.to`, problems);
  if (from !== '' && to !== '' && !(timeOf(from) < timeOf(to))) problems.push(`${at}.to: must be after from`);
  return {
    from,
    to,
    points: num(v.points, `${at}.points`, problems),
    excluded_points: num(v.excluded_points, `${at}.excluded_points`, problems),
  };
}

function limitsOf(v: Record<string, unknown>, at: string, problems: Problems) {
  const center = num(v.center, `${at}.center`, problems);
  const sigma = num(v.sigma, `${at}.sigma`, problems);
  const ucl = num(v.ucl, `${at}.ucl`, problems);
  const lcl = num(v.lcl, `${at}.lcl`, problems);
  if (!(sigma > 0) && !Number.isNaN(sigma)) problems.push(`${at}.sigma: must be above 0`);
  if (!(lcl < center && center < ucl) && ![center, ucl, lcl].some(Number.isNaN))
    problems.push(`${at}: must have lcl < center < ucl`);
  return { center, sigma, ucl, lcl };
}

/** `{ key: value }`, or nothing when the value is undefined (an absent optional field stays absent). */
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function entryOf(v: unknown, at: string, problems: Problems): LimitsEntry | undefined {
  if (!isObject(v)) {
    problems.push(`${at}: must be a mapping`);
    return undefined;
  }
  const station = text(v.station, `${at}.station`, problems, { nullable: false }) ?? '';
  if (station !== '' && !/^[0-9a-fA-F]{24}$/.test(station))
    problems.push(`${at}.station: must be 24 hex digits`);
  const excluded = v.excluded ?? [];
  if (!Array.isArray(excluded)) problems.push(`${at}.excluded: must be a list`);
  const approvedBy = text(v.approved_by, `${at}.approved_by`, problems, { nullable: true });
  const approvedAt = v.approved_at == null ? null : time(v.approved_at, `${at}.approved_at`, problems);
  return {
    station,
    metric: text(v.metric, `${at}.metric`, problems, { nullable: false }) ?? '',
    slot: text(v.slot, `${at}.slot`, problems, { nullable: true }),
    product: text(v.product, `${at}.product`, problems, { nullable: true }),
    ...limitsOf(v, at, problems),
    ...optional('study', studyOf(v.study, `${at}.study`, problems)),
    // Checked by the exporter's loader before this reads it.
    ...optional('calibration', isObject(v.calibration) ? (v.calibration as StudyCalibration) : undefined),
    excluded: (Array.isArray(excluded) ? excluded : []).flatMap(
      (e, i) => exclusionOf(e, `${at}.excluded[${i}]`, problems) ?? [],
    ),
    approved_by: approvedBy,
    approved_at: approvedAt,
    reason: text(v.reason, `${at}.reason`, problems, { nullable: true }),
  };
}

/** The entries of a parsed file, or every problem with its path. */
export function limitsFromObject(doc: unknown, source: string): LimitsFile {
  const problems: Problems = [];
  const root = isObject(doc) ? doc : {};
  if (!isObject(doc)) problems.push('(root): must be a mapping with version and charts');
  if (root.version !== 1) problems.push('version: must be 1');
  const charts = Array.isArray(root.charts) ? root.charts : [];
  if (!Array.isArray(root.charts)) problems.push('charts: must be a list');
  const entries = charts.flatMap((c, i) => entryOf(c, `charts[${i}]`, problems) ?? []);
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const key = chartKey(e);
    const first = seen.get(key);
    if (first !== undefined) problems.push(`charts[${i}]: the same chart as charts[${first}]`);
    else seen.set(key, i);
  });
  if (problems.length > 0) throw new LimitsFileError(`${source}:\n  ${problems.join('\n  ')}`);
  return { version: 1, charts: entries };
}

/**
 * Checks YAML text with the exporter's loader and reads it; throws the loader's error (every
 * problem with its path) or a {@link LimitsFileError}.
 */
export function limitsFromText(text: string, source: string): LimitsFile {
  parseLimits(text, source);
  return limitsFromObject(parse(text), source);
}

/** Reads and checks a limits file. */
export async function readLimitsFile(file: string): Promise<LimitsFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new LimitsFileError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return limitsFromText(text, file);
}

/**
 * The file as YAML, entries in the order given, station ids quoted (an id of digits only would
 * read back as a number).
 */
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
