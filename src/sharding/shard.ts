/**
 * Sharding across replicas by rendezvous hashing: every id (a station's, group's, line's or
 * site's own) goes to the shard of highest weight, the first 48 bits of SHA-1 over
 * `"<shard>:<id>"`. Replicas decide alone, and n to n + 1 shards moves about 1/(n + 1) of the ids.
 * The hash must never change: another would reassign every id at once. Shards count from 0.
 */
import { createHash } from 'node:crypto';

/** This replica's shard: `index` of `total`, 0 <= index < total. */
export interface Shard {
  readonly index: number;
  readonly total: number;
}

/** One replica that owns everything. */
export const UNSHARDED: Shard = { index: 0, total: 1 };

/** Largest shard count accepted; more replicas than this is a typo, not a plant. */
const MAX_SHARDS = 1024;

function weight(shard: number, id: string): number {
  return createHash('sha1').update(`${shard}:${id}`).digest().readUIntBE(0, 6);
}

/** The shard (0 .. total-1) that owns `id`. Ties, which need a 48-bit collision, go to the lower index. */
export function owner(id: string, total: number): number {
  if (!(Number.isInteger(total) && total >= 1))
    throw new RangeError(`shard total must be at least 1, got ${total}`);
  if (total === 1) return 0;
  let best = 0;
  let bestWeight = -1;
  for (let shard = 0; shard < total; shard++) {
    const w = weight(shard, id);
    if (w > bestWeight) {
      best = shard;
      bestWeight = w;
    }
  }
  return best;
}

/** The items `shard` owns, by their own `id`, in their original order. */
export function ownedBy<T extends { readonly id: string }>(shard: Shard, items: readonly T[]): T[] {
  return shard.total === 1 ? [...items] : items.filter((item) => owner(item.id, shard.total) === shard.index);
}

/** A parsed shard, or why the text is not one. */
export type ShardResult = { readonly shard: Shard } | { readonly error: string };

function checked(index: number, total: number): ShardResult {
  if (!(Number.isSafeInteger(total) && total >= 1 && total <= MAX_SHARDS)) {
    return { error: `shard total must be between 1 and ${MAX_SHARDS}, got ${total}` };
  }
  if (!(Number.isSafeInteger(index) && index >= 0 && index < total)) {
    return { error: `shard index must be between 0 and ${total - 1} (shards count from 0), got ${index}` };
  }
  return { shard: { index, total } };
}

/** Parses `--shard i/n`, e.g. `2/4` (the third of four shards). */
export function parseShard(text: string): ShardResult {
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  if (m === null) return { error: `--shard must be index/total such as 0/4, got "${text}"` };
  return checked(Number(m[1]), Number(m[2]));
}

/** The ordinal of a StatefulSet pod from its hostname, e.g. 3 for `station-exporter-3`. */
export function podOrdinal(hostname: string): number | undefined {
  // A pod's hostname is its name; the FQDN form adds the headless service's domain.
  const m = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?-(\d{1,6})(?:\.|$)/.exec(hostname);
  return m === null ? undefined : Number(m[2]);
}

/**
 * Where a replica may learn its shard, strongest first: `--shard i/n`, the config's `sharding`,
 * and a StatefulSet pod's host name with the shard total from the environment.
 */
export interface ShardSources {
  readonly flag?: string;
  readonly config?: Shard;
  readonly hostname?: string;
  readonly totalFromEnv?: string;
}

/**
 * This replica's shard: the flag, else the config, else the pod ordinal of the hostname with the
 * total from the environment, else unsharded. A total given without a usable ordinal is an error,
 * because silently owning everything on every replica would multiply the upstream's load.
 */
export function resolveShard(sources: ShardSources): ShardResult {
  if (sources.flag !== undefined) return parseShard(sources.flag);
  if (sources.config !== undefined) return checked(sources.config.index, sources.config.total);
  if (sources.totalFromEnv === undefined || sources.totalFromEnv === '') return { shard: UNSHARDED };
  const total = /^\d{1,6}$/.test(sources.totalFromEnv) ? Number(sources.totalFromEnv) : Number.NaN;
  const ordinal = sources.hostname === undefined ? undefined : podOrdinal(sources.hostname);
  if (ordinal === undefined) {
    return {
      error: `a shard total is set (${sources.totalFromEnv}) but the host name "${sources.hostname ?? ''}" ends in no pod ordinal`,
    };
  }
  return checked(ordinal, total);
}
