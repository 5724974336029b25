/**
 * A structural OpenMetrics checker for tests (no OpenMetrics linter is installed): the
 * rules Prometheus's OpenMetrics parser enforces on the subset of the format we emit.
 */
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(
  `^(${NAME})(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*\\})? (\\S+)$`,
);
const META = new RegExp(`^# (HELP|TYPE|UNIT) (${NAME})(?: (.*))?$`);
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|NaN|[+-]Inf)$/;
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  counter: ['_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count', '_created'],
};

/** Returns the problems found in an OpenMetrics body; empty when it looks valid. */
export function openMetricsProblems(body: string): string[] {
  const problems: string[] = [];
  if (!body.endsWith('# EOF\n')) problems.push('does not end with "# EOF\\n"');
  const lines = body.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.at(-1) === '# EOF') lines.pop();
  const state = { seen: new Set<string>(), family: '', type: '' };
  lines.forEach((line, i) => {
    const at = `line ${i + 1}: ${line}`;
    const found = line === '# EOF' ? ['EOF before the end'] : checkLine(line, state);
    for (const p of found) problems.push(`${at}: ${p}`);
  });
  return problems;
}

interface State {
  readonly seen: Set<string>;
  family: string;
  type: string;
}

function checkLine(line: string, state: State): string[] {
  const problems: string[] = [];
  const meta = META.exec(line);
  if (meta) {
    const [, kind, name = '', rest = ''] = meta;
    if (name !== state.family) {
      if (state.seen.has(name)) problems.push(`family ${name} interleaved`);
      state.seen.add(name);
      state.family = name;
      state.type = '';
    }
    if (kind === 'TYPE') state.type = rest;
    if (kind === 'TYPE' && !SUFFIXES[rest]) problems.push('unexpected type');
    if (kind === 'UNIT' && !name.endsWith(`_${rest}`)) problems.push('unit not a suffix');
    return problems;
  }
  const sample = SAMPLE.exec(line);
  if (!sample) return ['not a sample line'];
  if (state.type === '') problems.push('sample before TYPE');
  const allowed = (SUFFIXES[state.type] ?? []).map((s) => state.family + s);
  if (!allowed.includes(sample[1] ?? '')) problems.push(`name not in family ${state.family} (${state.type})`);
  if (!VALUE.test(sample[3] ?? '')) problems.push('bad value');
  return problems;
}
