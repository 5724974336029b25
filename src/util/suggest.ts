/** "Did you mean" suggestions for mistyped names: config keys, subcommands. */

/** Levenshtein distance: insertions, deletions and substitutions, each costing 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate nearest to `typed` (case-insensitive) within `maxDistance` edits, as a typo is. */
export function nearest(typed: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  const best = candidates
    .map((name) => ({ name, distance: editDistance(typed.toLowerCase(), name.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance)[0];
  return best !== undefined && best.distance <= maxDistance ? best.name : undefined;
}
