/** Flattens families into `name{labels} -> value`, for compact assertions in job tests. */
import type { Family } from '../../src/exposition/model.ts';

export function samplesOf(families: readonly Family[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of families) for (const s of f.samples) out.set(`${f.desc.name}{${s.labels.text}}`, s.value);
  return out;
}

/** The values of one family, keyed by one label's value. */
export function byLabel(families: readonly Family[], name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  const re = new RegExp(`${label}="([^"]*)"`);
  for (const f of families) {
    if (f.desc.name !== name) continue;
    for (const s of f.samples) out.set(re.exec(s.labels.text)?.[1] ?? '', s.value);
  }
  return out;
}
