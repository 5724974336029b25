/**
 * `limits study` without I/O: each chart studied with the exporter's settings for its name, and
 * the file for review, keeping the approvals of the file passed in where the numbers stayed.
 */
import type { Config } from '../../config/schema.ts';
import type { DetectorParams } from '../../spc/detector-state.ts';
import type { ControlLimits } from '../../spc/limits.ts';
import { type ChartStudy, type StudySettings, studyChart } from '../../spc/study.ts';
import { chartKey, exclusionSpan, type LimitsEntry, type LimitsFile, rfc3339 } from './file.ts';
import type { ChartSeries } from './source.ts';

/** Fewest points for limits when a name has no entry of its own: the config's default `min_samples`. */
const DEFAULT_MIN_SAMPLES = 25;

/** Significant digits of the numbers written: far finer than any sigma, so a re-study that changes nothing compares equal. */
const DIGITS = 7;

const rounded = (x: number) => Number(x.toPrecision(DIGITS));

/** The exporter's settings for a measurement name: its `control.names` entry, or the section's defaults. */
function settingsOf(control: Config['measurements']['control'], name: string): StudySettings {
  const entry = control.names.find((n) => n.pattern.test(name));
  const detectors: DetectorParams = {
    cusum: entry?.cusum ?? control.cusum,
    ewma: entry?.ewma ?? control.ewma,
  };
  return {
    rules: control.rules,
    detectors,
    compensate: control.compensate,
    minSamples: entry?.minSamples ?? DEFAULT_MIN_SAMPLES,
  };
}

/** What happened to a chart's approval in this study. */
type ApprovalChange = 'none' | 'kept' | 'dropped';

/** One chart studied: its series, its study, the file entry it gives (none without limits). */
export interface StudiedChart {
  readonly series: ChartSeries;
  readonly study: ChartStudy;
  readonly entry: LimitsEntry | undefined;
  /** The entry of the file passed in, if it had one for this chart. */
  readonly previous: LimitsEntry | undefined;
  readonly approval: ApprovalChange;
}

/** The period of a study, Unix ms. */
export interface StudyPeriod {
  readonly fromMs: number;
  readonly toMs: number;
}

/** The calibration the study measured, as the file writes it; none without one. */
function calibrationEntry(l: ControlLimits): LimitsEntry['calibration'] {
  const c = l.calibration;
  if (c === undefined) return undefined;
  return {
    sd: rounded(c.sigma),
    phi: rounded(c.phi),
    skewness: rounded(c.skewness),
    excess_kurtosis: rounded(c.excessKurtosis ?? 0),
  };
}

/** The numbers an approval vouches for: limits, study and calibration. */
function approvedNumbers(e: Omit<LimitsEntry, 'approved_by' | 'approved_at' | 'reason'>) {
  const { study: st, calibration: c } = e;
  const shape = c === undefined ? [] : [c.sd, c.phi, c.skewness, c.excess_kurtosis];
  const study = st === undefined ? [] : [st.points, Date.parse(st.from), Date.parse(st.to)];
  return [e.center, e.sigma, e.ucl, e.lcl, ...study, ...shape];
}

function sameNumbers(
  a: LimitsEntry,
  b: Omit<LimitsEntry, 'approved_by' | 'approved_at' | 'reason'>,
): boolean {
  const [x, y] = [approvedNumbers(a), approvedNumbers(b)];
  return a.study !== undefined && x.length === y.length && x.every((v, i) => v === y[i]);
}

function entryOf(
  series: ChartSeries,
  study: ChartStudy,
  opts: { readonly period: StudyPeriod; readonly previous: LimitsEntry | undefined },
): { entry: LimitsEntry | undefined; approval: ApprovalChange } {
  const { previous, period } = opts;
  if (!study.result.ok) return { entry: undefined, approval: previous?.approved_by ? 'dropped' : 'none' };
  const l = study.result.limits;
  const calibration = calibrationEntry(l);
  const numbers = {
    station: series.station.id,
    metric: series.name,
    slot: series.slot,
    product: null,
    center: rounded(l.center),
    sigma: rounded(l.sigma),
    ucl: rounded(l.ucl),
    lcl: rounded(l.lcl),
    study: {
      from: rfc3339(period.fromMs),
      to: rfc3339(period.toMs),
      points: study.points,
      excluded_points: study.excludedPoints,
    },
    ...(calibration === undefined ? {} : { calibration }),
    excluded: previous?.excluded ?? [],
  };
  const approved = previous?.approved_by != null && previous.approved_at != null;
  const keep = approved && sameNumbers(previous, numbers);
  return {
    entry: {
      ...numbers,
      approved_by: keep ? previous.approved_by : null,
      approved_at: keep ? previous.approved_at : null,
      reason: previous?.reason ?? null,
    },
    approval: keep ? 'kept' : approved ? 'dropped' : 'none',
  };
}

/**
 * Studies every series with its chart's exclusions from `previous`, and builds the file: the
 * studied charts in order, then the entries of `previous` this study did not cover, as they were.
 */
export function studyAll(
  series: readonly ChartSeries[],
  opts: {
    readonly control: Config['measurements']['control'];
    readonly period: StudyPeriod;
    readonly previous?: LimitsFile;
  },
): { charts: StudiedChart[]; file: LimitsFile } {
  const before = new Map((opts.previous?.charts ?? []).map((e) => [chartKey(e), e]));
  const covered = new Set<string>();
  const charts = series.map((s): StudiedChart => {
    const key = chartKey({ station: s.station.id, metric: s.name, slot: s.slot, product: null });
    covered.add(key);
    const previous = before.get(key);
    const excluded = (previous?.excluded ?? []).map(exclusionSpan);
    const study = studyChart(s, {
      settings: settingsOf(opts.control, s.name),
      excluded,
      period: opts.period,
    });
    return { series: s, study, previous, ...entryOf(s, study, { period: opts.period, previous }) };
  });
  const entries = [
    ...charts.flatMap((c) => c.entry ?? c.previous ?? []),
    ...(opts.previous?.charts ?? []).filter((e) => !covered.has(chartKey(e))),
  ];
  return { charts, file: { version: 1, charts: entries } };
}

/** The study period the entries of a file share, when they share one. */
export function periodOfFile(file: LimitsFile): StudyPeriod | undefined {
  const periods = new Set(
    file.charts.flatMap((e) =>
      e.study === undefined ? [] : [`${Date.parse(e.study.from)}/${Date.parse(e.study.to)}`],
    ),
  );
  if (periods.size !== 1) return undefined;
  const [from, to] = [...periods][0]!.split('/').map(Number);
  return { fromMs: from!, toMs: to! };
}
