/**
 * Keeps the generated sections of the README in step with the code. A section lies between
 * `<!-- BEGIN NAME ... -->` and `<!-- END NAME -->` markers; everything else is hand-written.
 */
import { configReferenceRows } from '../config/reference.ts';
import { renderMetricsReference } from './metrics-reference.ts';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The config keys as a table (docs/config.md has the same table with an introduction). */
function configTable(): string {
  const rows = configReferenceRows().map(
    (r) => `| \`${r.path}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`,
  );
  return ['| Key | Type | Default | Description |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The generated sections, by marker name. */
export function generatedSections(): Record<string, string> {
  return {
    'CONFIG REFERENCE': configTable(),
    'METRICS REFERENCE': renderMetricsReference(),
  };
}

/** Returns `readme` with every generated section replaced by its current content. */
export function updateReadme(readme: string, sections = generatedSections()): string {
  let out = readme;
  for (const [name, body] of Object.entries(sections)) {
    const re = new RegExp(`(<!-- BEGIN ${name}[^>]*-->\\n)[\\s\\S]*?(<!-- END ${name} -->)`);
    if (!re.test(out)) throw new Error(`README has no generated section ${name}`);
    out = out.replace(re, (_m, begin: string, end: string) => `${begin}${body.trimEnd()}\n${end}`);
  }
  return out;
}
