import { z } from 'zod';
import { isValidTimeZone } from '../time/zones.ts';
import { formatDuration, parseDuration } from './duration.ts';

/** Longest duration accepted anywhere: windows beyond a week are out of scope, and longer timers overflow. */
const MAX_DURATION_MS = 7 * 86_400_000;

type Ctx = z.core.$RefinementCtx;

/** Shortest polling period or timeout: nothing upstream changes faster, and no request completes in less. */
export const MIN_PERIOD_MS = 1_000;

/** Validates a duration string, reporting on `ctx`; returns milliseconds or `undefined`. */
export function checkDuration(text: string, ctx: Ctx): number | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `invalid duration "${text}" (use e.g. 500ms, 30s, 5m, 1h30m, 2d, 1w)`,
    });
    return undefined;
  }
  if (ms > MAX_DURATION_MS) {
    ctx.addIssue({ code: 'custom', message: `duration "${text}" is longer than the maximum of 7d` });
    return undefined;
  }
  return ms;
}

/** A Prometheus-style duration string, parsed to milliseconds, at least `minMs` if given. */
export function duration({ minMs }: { readonly minMs?: number } = {}) {
  return z
    .string({ error: 'must be a duration with a unit, such as 30s, 5m or 1h30m' })
    .transform((text, ctx) => {
      const ms = checkDuration(text, ctx);
      if (ms === undefined) return z.NEVER;
      if (minMs !== undefined && ms < minMs) {
        ctx.addIssue({ code: 'custom', message: `must be at least ${formatDuration(minMs)}, got ${text}` });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ 'x-type': minMs === undefined ? 'duration' : `duration (≥ ${formatDuration(minMs)})` });
}

/** A polling period or a timeout: a duration of at least {@link MIN_PERIOD_MS}. */
export function period() {
  return duration({ minMs: MIN_PERIOD_MS });
}

/** A regular expression, anchored at both ends so that `Line 1` does not also match `Line 10`. */
export function anchoredRegex() {
  return z
    .string()
    .transform((source, ctx) => {
      try {
        return new RegExp(`^(?:${source})$`);
      } catch (err) {
        const reason = err instanceof Error ? (err.message.split(': ').at(-1) ?? err.message) : String(err);
        ctx.addIssue({ code: 'custom', message: `invalid regular expression "${source}": ${reason}` });
        return z.NEVER;
      }
    })
    .meta({ 'x-type': 'regex' });
}

/** A string that `re` matches, else `must be ${what}, got "..."`. */
function matching(re: RegExp, what: string, xType: string) {
  return z
    .string()
    .refine((v) => re.test(v), { error: (iss) => `must be ${what}, got "${String(iss.input)}"` })
    .meta({ 'x-type': xType });
}

/** A 24-character hexadecimal identifier as used by the upstream for sites and stations. */
export function hexId() {
  return matching(/^[0-9a-fA-F]{24}$/, 'a 24-character hexadecimal id', 'id');
}

/** An IANA time zone name known to the runtime's ICU data. */
export function timeZone() {
  return z
    .string()
    .refine(isValidTimeZone, { error: (iss) => `unknown time zone "${String(iss.input)}"` })
    .meta({ 'x-type': 'time zone' });
}

/** A 24-hour `HH:MM` wall-clock time. */
export function clockTime() {
  return matching(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a 24-hour time HH:MM', 'HH:MM');
}

/**
 * Reports every item whose `key` was seen before as `duplicate ${what} "..."`. Runs {@link always},
 * so `items` may be half-parsed or not a list: an item without a string key is never a duplicate.
 */
export function reportDuplicates<T>(
  items: readonly T[],
  ctx: Ctx,
  { key, what }: { readonly key: (item: T) => unknown; readonly what: string },
): void {
  if (!Array.isArray(items)) return;
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const value = key(item);
    if (typeof value !== 'string') return;
    if (seen.has(value))
      ctx.addIssue({ code: 'custom', message: `duplicate ${what} "${value}"`, path: [index] });
    seen.add(value);
  });
}

/**
 * Runs a refinement even when sibling fields already failed, so that all problems are reported at once.
 * Such a refinement must check the shape of its input itself: it may be half-parsed or missing.
 */
export const always = { when: () => true } as const;

/** True for a mapping, which a refinement running {@link always} must check before reading keys. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A refinement: `to` after `from`, once both parsed (times in ms). */
export function checkOrder(o: unknown, ctx: Ctx): void {
  if (isRecord(o) && typeof o.from === 'number' && typeof o.to === 'number' && o.from >= o.to)
    ctx.addIssue({ code: 'custom', message: 'must be after from', path: ['to'] });
}

/** A refinement: either `key` or a period of `from` and `to` (both, in order); `say` words the mistakes. */
export function keyOrPeriod(key: string, say: { readonly both: string; readonly neither: string }) {
  return (o: unknown, ctx: Ctx): void => {
    if (!isRecord(o)) return;
    const missing = ['from', 'to'].filter((k) => o[k] === undefined);
    const period = missing.length < 2;
    if (period === (o[key] !== undefined))
      ctx.addIssue({ code: 'custom', message: period ? say.both : say.neither });
    else if (period && missing[0] !== undefined)
      ctx.addIssue({ code: 'custom', message: 'is required', path: [missing[0]] });
    else checkOrder(o, ctx);
  };
}

/** Two keys that go together: each set (not null) needs the other, `is required with ...`. */
export function checkPair(o: Record<string, unknown>, ctx: Ctx, a: string, b: string): void {
  const set = (k: string) => o[k] !== undefined && o[k] !== null;
  if (set(a) && !set(b)) ctx.addIssue({ code: 'custom', message: `is required with ${a}`, path: [b] });
  if (set(b) && !set(a)) ctx.addIssue({ code: 'custom', message: `is required with ${b}`, path: [a] });
}

type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** A mapping's snake_case keys in camelCase. */
type CamelKeys<T> = { [K in keyof T as K extends string ? Camel<K> : K]: T[K] };

/** A validated mapping with its snake_case keys in camelCase, as the config's output spells them. */
export function camelKeys<T extends object>(o: T): CamelKeys<T> {
  const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [camel(k), v])) as CamelKeys<T>;
}

/** A collector's polling interval. */
export function interval(what: string) {
  return period().prefault('1m').describe(`How often ${what} are polled.`);
}

/** A collector's max_staleness: how long its last good data is served. */
export function maxStaleness() {
  return period()
    .optional()
    .describe(
      'How long the last good data is served when polls fail; past it the series are dropped. Default: 5 intervals.',
    );
}
