/**
 * Keeps the generated sections of a hand-written document (docs/metrics.md) in step with the
 * code. A section lies between `<!-- BEGIN NAME ... -->` and `<!-- END NAME -->` markers;
 * everything else is hand-written. (docs/config.md is generated whole: src/config/reference.ts.)
 */
import { renderMetricsReference } from './metrics-reference.ts';

/** The document whose sections are generated. */
export const METRICS_DOC = 'docs/metrics.md';

/** The generated sections of {@link METRICS_DOC}, by marker name. */
function generatedSections(): Record<string, string> {
  return { 'METRICS REFERENCE': renderMetricsReference() };
}

/** Returns `doc` with every generated section replaced by its current content. */
export function updateSections(doc: string, sections = generatedSections()): string {
  let out = doc;
  for (const [name, body] of Object.entries(sections)) {
    const re = new RegExp(`(<!-- BEGIN ${name}[^>]*-->\\n)[\\s\\S]*?(<!-- END ${name} -->)`);
    if (!re.test(out)) throw new Error(`the document has no generated section ${name}`);
    out = out.replace(re, (_m, begin: string, end: string) => `${begin}${body.trimEnd()}\n${end}`);
  }
  return out;
}
