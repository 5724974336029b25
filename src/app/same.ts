/**
 * Whether two configs agree on some sections, for a reload that keeps what did not change.
 * Regular expressions compare by source and flags (JSON would see them all as `{}`).
 */
import type { Config } from '../config/schema.ts';

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof RegExp ? `/${v.source}/${v.flags}` : v));
}

/** True when `a` and `b` hold equal values under every key of `keys`. */
export function sameSettings(a: Config, b: Config, keys: readonly string[]): boolean {
  const pick = (c: Config) => keys.map((k) => (c as unknown as Record<string, unknown>)[k]);
  return canonical(pick(a)) === canonical(pick(b));
}
