/** A small parser of the Prometheus text format, for asserting on exported samples in tests. */

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const unescapeValue = (s: string) => s.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** Labels as Prometheus stores them: a label with an empty value is the same as no label. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const m of text.matchAll(re)) {
    const value = unescapeValue(m[2] ?? '');
    if (value !== '') labels[m[1] ?? ''] = value;
  }
  return labels;
}

/** The series identity Prometheus would store a sample under: name and sorted non-empty labels. */
function seriesKey(s: ParsedSample): string {
  const pairs = Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${s.name}{${pairs.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
}

/** Series that more than one sample line maps to (Prometheus would keep only one of them). */
export function duplicateSeries(samples: readonly ParsedSample[]): string[] {
  const seen = new Map<string, number>();
  for (const s of samples) seen.set(seriesKey(s), (seen.get(seriesKey(s)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/** Parses every sample line; comments are skipped. */
export function parseExposition(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparsable sample line: ${line}`);
    out.push({ name: m[1] ?? '', labels: parseLabels(m[2] ?? ''), value: Number(m[3]) });
  }
  return out;
}
