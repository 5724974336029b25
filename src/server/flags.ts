/** Reads the HTTP limit flags of the command line into {@link HttpLimits}. */
import { formatDuration, parseDuration } from '../config/duration.ts';
import { MIN_PERIOD_MS } from '../config/fields.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http.ts';

/** The flag values as `parseArgs` gives them. */
export interface HttpLimitFlags {
  readonly 'web.read-header-timeout'?: string;
  readonly 'web.request-timeout'?: string;
  readonly 'web.idle-timeout'?: string;
  readonly 'web.write-timeout'?: string;
  readonly 'web.max-connections'?: string;
}

/** Each duration limit and the flag that sets it, in the order their errors are reported. */
const DURATION_FLAGS = {
  headerTimeoutMs: 'web.read-header-timeout',
  requestTimeoutMs: 'web.request-timeout',
  idleTimeoutMs: 'web.idle-timeout',
  writeTimeoutMs: 'web.write-timeout',
} as const;

/** The limits, defaults filled in, or the message for the first bad flag. */
export function parseHttpLimits(flags: HttpLimitFlags): HttpLimits | string {
  const limits = { ...DEFAULT_HTTP_LIMITS };
  for (const [key, flag] of Object.entries(DURATION_FLAGS) as [keyof typeof DURATION_FLAGS, string][]) {
    const text = flags[flag as keyof HttpLimitFlags];
    if (text === undefined) continue;
    const ms = parseDuration(text);
    if (ms === undefined) return `--${flag} must be a duration such as 10s or 2m, got "${text}"`;
    // The config's floor for periods and timeouts: no client sends that fast.
    if (ms < MIN_PERIOD_MS) return `--${flag} must be at least ${formatDuration(MIN_PERIOD_MS)}, got ${text}`;
    limits[key] = ms;
  }
  const max = flags['web.max-connections'];
  if (max !== undefined) {
    limits.maxConnections = Number(max);
    if (!/^\d+$/.test(max) || !Number.isSafeInteger(limits.maxConnections) || limits.maxConnections < 1)
      return `--web.max-connections must be a whole number of at least 1, got "${max}"`;
  }
  // Node requires it: a request cannot take less time than its head.
  if (limits.requestTimeoutMs < limits.headerTimeoutMs) {
    return '--web.request-timeout must not be shorter than --web.read-header-timeout';
  }
  return limits;
}
