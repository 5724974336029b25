/** The plain-text report of `limits study`: one short block per chart. */
import { AUTOCORRELATION_FLAG } from '../../spc/autocorrelation.ts';
import { cusumLongRunFactor } from '../../spc/calibration.ts';
import type { StudyEpisode } from '../../spc/study.ts';
import { rfc3339 } from './file.ts';
import type { StudiedChart } from './study.ts';

/** Episodes listed per chart; the rest are counted. */
const EPISODES_SHOWN = 5;
/** A point beyond 3 sigma of normal, independent in-control data: 0.27 %. */
const RULE1_CHANCE = 0.0027;

const fmt = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(5)).toString() : String(x));

function title(c: StudiedChart): string {
  const s = c.series.station;
  const slot = c.series.slot === null ? '' : ` slot ${c.series.slot}`;
  return `${s.line.name} / ${s.name} (${s.id})  ${c.series.name}${slot}`;
}

function approvalLine(c: StudiedChart): string {
  const p = c.previous;
  if (c.approval === 'kept') return `  approval kept: ${p?.approved_by} at ${p?.approved_at}`;
  if (c.approval === 'dropped')
    return `  approval of ${p?.approved_by} dropped: the numbers changed (was centre ${fmt(p?.center ?? Number.NaN)}, sigma ${fmt(p?.sigma ?? Number.NaN)})`;
  return '  not approved';
}

function normalityLine(c: StudiedChart): string {
  const ad = c.study.normality;
  if (ad === undefined) return '  normality: not tested (fewer than 8 points or no spread)';
  const p = ad.pValue < 0.001 ? 'p < 0.001' : `p = ${fmt(ad.pValue)}`;
  const verdict =
    ad.pValue < 0.05
      ? 'not normal: the rules\u2019 chance rates do not hold as documented'
      : 'normal not rejected';
  return `  normality: Anderson-Darling A\u00b2 ${fmt(ad.statistic)}, ${p} (${verdict})`;
}

function autocorrelationLine(c: StudiedChart): string | undefined {
  if (!c.study.result.ok) return undefined;
  const l = c.study.result.limits;
  if (l.autocorrelation === undefined) return undefined;
  const flag = l.autocorrelated
    ? `significantly above ${AUTOCORRELATION_FLAG}: points are not independent`
    : `not significantly above ${AUTOCORRELATION_FLAG}`;
  const comp =
    l.compensatedPhi === undefined ? '' : `; sigma widened for it by 1/sqrt(1 - ${fmt(l.compensatedPhi)})`;
  return `  lag-1 autocorrelation ${fmt(l.autocorrelation)} (${flag}${comp})`;
}

/** The shape the entry carries for the detectors, and what it does to the configured CUSUM's h. */
function calibrationLine(c: StudiedChart): string | undefined {
  const k = c.study.result.ok ? c.study.result.limits.calibration : undefined;
  if (k === undefined) return undefined;
  const shape = `sd ${fmt(k.sigma)}, phi ${fmt(k.phi)}, skewness ${fmt(k.skewness)}, excess kurtosis ${fmt(k.excessKurtosis ?? 0)}`;
  return `  detectors calibrated on: ${shape} (CUSUM h × ${fmt(cusumLongRunFactor(k.phi))})`;
}

function countsLine(c: StudiedChart): string {
  const rules = c.study.ruleHits.map((h, k) => `${k + 1}:${h.length}`).join(' ');
  const chance = fmt(c.study.points * RULE1_CHANCE);
  return `  flagged points: rules ${rules}; cusum ${c.study.cusumHits.length}; ewma ${c.study.ewmaHits.length} (rule 1 by chance alone: about ${chance})`;
}

function episodeLines(e: StudyEpisode): string[] {
  const span = e.fromMs === e.lastMs ? rfc3339(e.fromMs) : `${rfc3339(e.fromMs)} .. ${rfc3339(e.lastMs)}`;
  const sign = e.extreme >= 0 ? '+' : '';
  const to = Number.isNaN(e.nextMs) ? e.lastMs + 1 : e.nextMs;
  return [
    `    ${span}: ${e.flags} flags (${e.sources.join(', ')}), furthest ${sign}${fmt(e.extreme)} sigma`,
    `      to exclude: { from: ${rfc3339(e.fromMs)}, to: ${rfc3339(to)}, cause: "..." }`,
  ];
}

/** The report's block of one chart. */
function chartBlock(c: StudiedChart): string {
  const lines = [title(c)];
  const { study } = c;
  const excl = c.previous?.excluded.length ?? 0;
  lines.push(
    `  points: ${study.points} kept, ${study.excludedPoints} excluded${excl > 0 ? ` by ${excl} exclusion(s)` : ''}`,
  );
  if (!study.result.ok) {
    lines.push(`  no limits: ${study.result.reason.replaceAll('_', ' ')}; no entry written`);
    return `${lines.join('\n')}\n`;
  }
  const l = study.result.limits;
  lines.push(
    `  centre ${fmt(l.center)}  sigma ${fmt(l.sigma)} (moving range)  limits ${fmt(l.lcl)} .. ${fmt(l.ucl)}`,
  );
  lines.push(normalityLine(c));
  const ac = autocorrelationLine(c);
  if (ac !== undefined) lines.push(ac);
  const cal = calibrationLine(c);
  if (cal !== undefined) lines.push(cal);
  lines.push(countsLine(c));
  const episodes = study.episodes;
  if (episodes.length === 0) lines.push('  look at: nothing flagged');
  else {
    lines.push(`  look at (${episodes.length} stretch(es) of flagged points, most flags first):`);
    for (const e of episodes.slice(0, EPISODES_SHOWN)) lines.push(...episodeLines(e));
    if (episodes.length > EPISODES_SHOWN) lines.push(`    ... and ${episodes.length - EPISODES_SHOWN} more`);
  }
  lines.push(approvalLine(c));
  return `${lines.join('\n')}\n`;
}

/** The whole report. */
export function studyReport(charts: readonly StudiedChart[], header: string): string {
  return [header, ...charts.map(chartBlock)].join('\n');
}
