/**
 * Self-metrics rendered at most once per `maxAgeMs` per format, so a burst of scrapes costs only
 * writing cached bytes; values lag by `maxAgeMs` at most, far below any scrape interval.
 */

import type { ExpositionCache, Tail } from '../exposition/cache.ts';
import type { Registry } from '../exposition/client.ts';
import type { ExpositionFormat } from '../exposition/render.ts';
import { registryFamilies } from '../exposition/selfmetrics.ts';

export interface TailMemoOptions {
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  /** 0 renders them on every scrape. */
  readonly maxAgeMs: number;
}

/** Returns the self-metrics tail for a format, re-rendered when older than `maxAgeMs`. */
export function createTailMemo(opts: TailMemoOptions): (format: ExpositionFormat) => Promise<Tail> {
  const memo = new Map<ExpositionFormat, { at: number; tail: Tail }>();
  return async (format) => {
    const held = memo.get(format);
    if (held && performance.now() - held.at < opts.maxAgeMs) return held.tail;
    const tail = opts.cache.tail(format, await registryFamilies(opts.registry));
    memo.set(format, { at: performance.now(), tail });
    return tail;
  };
}
