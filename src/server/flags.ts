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

/** The limits, defaults filled in, or the message for the first bad flag. */
export function parseHttpLimits(flags: HttpLimitFlags): HttpLimits | string {
  const duration = (flag: keyof HttpLimitFlags, fallback: number): number | string => {
    const text = flags[flag];
    if (text === undefined) return fallback;
    const ms = parseDuration(text);
    if (ms === undefined) return `--${flag} must be a duration such as 10s or 2m, got "${text}"`;
    // The config's floor for periods and timeouts: no client sends that fast.
    return ms >= MIN_PERIOD_MS
      ? ms
      : `--${flag} must be at least ${formatDuration(MIN_PERIOD_MS)}, got ${text}`;
  };
  const headerTimeoutMs = duration('web.read-header-timeout', DEFAULT_HTTP_LIMITS.headerTimeoutMs);
  const requestTimeoutMs = duration('web.request-timeout', DEFAULT_HTTP_LIMITS.requestTimeoutMs);
  const idleTimeoutMs = duration('web.idle-timeout', DEFAULT_HTTP_LIMITS.idleTimeoutMs);
  const writeTimeoutMs = duration('web.write-timeout', DEFAULT_HTTP_LIMITS.writeTimeoutMs);
  const max = flags['web.max-connections'];
  const maxConnections = max === undefined ? DEFAULT_HTTP_LIMITS.maxConnections : Number(max);
  for (const v of [headerTimeoutMs, requestTimeoutMs, idleTimeoutMs, writeTimeoutMs])
    if (typeof v === 'string') return v;
  if (!/^\d+$/.test(max ?? '1') || !Number.isSafeInteger(maxConnections) || maxConnections < 1) {
    return `--web.max-connections must be a whole number of at least 1, got "${max}"`;
  }
  const limits = {
    headerTimeoutMs: headerTimeoutMs as number,
    requestTimeoutMs: requestTimeoutMs as number,
    idleTimeoutMs: idleTimeoutMs as number,
    writeTimeoutMs: writeTimeoutMs as number,
    maxConnections,
    stalledWriteMs: DEFAULT_HTTP_LIMITS.stalledWriteMs,
  };
  // Node requires it: a request cannot take less time than its head.
  if (limits.requestTimeoutMs < limits.headerTimeoutMs) {
    return '--web.request-timeout must not be shorter than --web.read-header-timeout';
  }
  return limits;
}
