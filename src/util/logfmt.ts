/**
 * Turns pino's JSON log lines into logfmt, the default log format of Prometheus and its
 * exporters (`--log.format=logfmt`): `time=… level=warn msg="…" key=value`, one line per
 * record. Nested values are written as JSON inside one quoted value.
 */

/** pino's level numbers and the names logfmt shows. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** Quotes a value when it holds a space, a quote, `=` or a control character, or is empty. */
function logfmtValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '""';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters must be quoted.
  return text === '' || /[\s"=\\\u0000-\u001f]/.test(text) ? JSON.stringify(text) : text;
}

/** A key as logfmt allows it: no spaces, quotes or `=`. */
function logfmtKey(key: string): string {
  return key.replace(/[\s"=]/g, '_');
}

/**
 * One JSON log line as a logfmt line: time, level and msg first, then the other fields in
 * their order. A line that is not a JSON object is passed through unchanged.
 */
export function jsonLineToLogfmt(line: string): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    record = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const { time, level, msg, ...rest } = record;
  const parts: string[] = [];
  if (typeof time === 'number') parts.push(`time=${new Date(time).toISOString()}`);
  if (level !== undefined)
    parts.push(`level=${typeof level === 'number' ? (LEVEL_NAMES[level] ?? level) : logfmtValue(level)}`);
  if (msg !== undefined) parts.push(`msg=${logfmtValue(msg)}`);
  for (const [key, value] of Object.entries(rest)) parts.push(`${logfmtKey(key)}=${logfmtValue(value)}`);
  return `${parts.join(' ')}\n`;
}
