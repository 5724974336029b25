/** Milliseconds per duration unit, largest first, as Prometheus spells them. */
const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['y', 365 * 86_400_000],
  ['w', 7 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

// Same grammar as Prometheus' model.ParseDuration: units in descending order, each at most once.
const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * Parses a Prometheus-style duration such as `500ms` or `1h30m` to milliseconds; `undefined` for bare
 * numbers, zero, units out of order, or values too large to be exact.
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_RE.exec(text);
  if (text === '' || match === null) return undefined;
  let total = 0;
  UNITS.forEach(([, unitMs], i) => {
    const count = match[i + 1];
    if (count !== undefined) total += Number(count) * unitMs;
  });
  if (total <= 0 || !Number.isSafeInteger(total)) return undefined;
  return total;
}

/** Formats milliseconds the way {@link parseDuration} reads them, e.g. `5400000` → `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  // Years are skipped because 52w1d reads better than a year that ignores leap days.
  for (const [unit, unitMs] of UNITS.slice(1)) {
    const count = Math.floor(rest / unitMs);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * unitMs;
    }
  }
  return out;
}
