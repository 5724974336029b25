/** A small parser of the Prometheus text format, for asserting on exported samples in tests. */

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const unescapeValue = (s: string) => s.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const m of text.matchAll(re)) labels[m[1] ?? ''] = unescapeValue(m[2] ?? '');
  return labels;
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
