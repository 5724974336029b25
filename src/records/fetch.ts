/**
 * Incremental fetching of record lists for many stations: each is read from where its last
 * complete fetch ended (less an overlap for late records), stations sharing a start are batched
 * into one `station_ids` list per request within the URL limit, and truncated spans are split.
 */
import { getOrCreate } from '../util/maps.ts';
import { countFailure, fetchSpan, type SpanContext, type SpanStats, settleAll } from './spans.ts';
import type { RecordSource, Timed } from './types.ts';

/** Options of one incremental fetch; refused stations are left out but for one probe each when due. */
export interface IncrementalFetchOptions<R extends Timed>
  extends Pick<SpanContext<R>, 'source' | 'maxRecords' | 'onRecords' | 'signal' | 'refused'> {
  readonly stationIds: readonly string[];
  /** End of each station's last complete fetch (epoch ms); stations without one start fresh. */
  readonly watermarks: ReadonlyMap<string, number>;
  /** End of every span (exclusive), epoch ms. */
  readonly now: number;
  /** Time of the poll for refused stations' probes when spans end earlier (a re-read). */
  readonly pollTime?: number;
  /** Oldest time still needed: the start of the longest window. */
  readonly retainFrom: number;
  readonly overlapMs: number;
  readonly maxUrlLength: number;
  /** Longest span one request asks for; default 30 minutes (a split makes spans of 1 minute or more). */
  readonly maxSpanMs?: number;
}

/** What one incremental fetch did. */
export interface IncrementalFetchResult extends SpanStats {
  /** Advanced to `now` for every station whose chunk succeeded. */
  readonly watermarks: Map<string, number>;
  /** Stations whose watermark did not advance. */
  readonly failedStations: number;
  readonly firstError?: Error;
}

const MINUTE = 60_000;

/** Spans of half an hour keep each answer, and the JSON.parse blocking the event loop, small. */
export const DEFAULT_MAX_SPAN_MS = 30 * MINUTE;

/** `[from, to)` cut into consecutive spans of at most `max`. */
export function spansOf(from: number, to: number, max: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let a = from; a < to; a += max) spans.push([a, Math.min(a + max, to)]);
  return spans;
}

/** Groups stations by the start of their next span; refused stations due for a probe come apart. */
function plan<R extends Timed>(opts: IncrementalFetchOptions<R>) {
  const byFrom = new Map<number, string[]>();
  const probes: Array<[number, string]> = [];
  for (const id of opts.stationIds) {
    if (opts.refused?.has(id)) {
      if (opts.refused.wanted(id, opts.now)) probes.push([opts.retainFrom, id]);
      continue;
    }
    const mark = opts.watermarks.get(id);
    const from = mark === undefined ? opts.retainFrom : Math.max(opts.retainFrom, mark - opts.overlapMs);
    if (from >= opts.now) continue;
    getOrCreate(byFrom, from, () => []).push(id);
  }
  return { byFrom, probes };
}

/**
 * Fetches every station's new records. A failed chunk keeps its stations' watermarks, so the next
 * fetch asks again; records it did receive are delivered anyway (the store recognises repeats).
 */
export async function fetchIncremental<R extends Timed>(
  opts: IncrementalFetchOptions<R>,
): Promise<IncrementalFetchResult> {
  const known = opts.stationIds.filter((id) => opts.watermarks.has(id));
  const watermarks = new Map(known.map((id) => [id, opts.watermarks.get(id)!]));
  const stats = { requests: 0, splits: 0, truncated: 0, failures: 0, notSent: 0, failedStations: 0 };
  let firstError: Error | undefined;
  const fail = (ids: readonly string[], err: unknown) => {
    stats.failedStations += ids.length;
    firstError ??= err instanceof Error ? err : new Error(String(err));
  };
  const ctx = {
    source: opts.source,
    maxRecords: opts.maxRecords,
    minSpanMs: MINUTE,
    onRecords: opts.onRecords,
    signal: opts.signal,
    stats,
    refused: opts.refused,
    now: opts.pollTime ?? opts.now,
  };
  const tasks: Promise<void>[] = [];
  const fetchChunk = (chunk: string[], from: number, kind: { readonly probe?: boolean } = {}) => {
    const probe = kind.probe ?? false;
    const spans = spansOf(from, opts.now, opts.maxSpanMs ?? DEFAULT_MAX_SPAN_MS);
    tasks.push(
      settleAll(spans.map(([a, b]) => fetchSpan(ctx, chunk, { from: a, to: b, timeoutSplits: 0 }))).then(
        () => {
          // A refused station keeps no watermark: once access is granted it reads its whole window.
          for (const id of chunk) {
            // A probe read only a minute: a station it found accessible reads its window next poll.
            if (probe || opts.refused?.has(id)) watermarks.delete(id);
            else watermarks.set(id, opts.now);
          }
        },
        (err: unknown) => fail(chunk, err),
      ),
    );
  };
  const { byFrom, probes } = plan(opts);
  for (const [from, ids] of byFrom) {
    const { chunks, tooLong } = chunkByUrl(opts.source, ids, {
      from,
      to: opts.now,
      maxUrlLength: opts.maxUrlLength,
    });
    for (const id of tooLong) {
      const err = new Error(`a request for station ${id} alone exceeds max_url_length`);
      countFailure(stats, err);
      stats.notSent++;
      fail([id], err);
    }
    for (const chunk of chunks) fetchChunk(chunk, from);
  }
  // A probe asks for the last minute only: enough to learn whether access came back.
  for (const [, id] of probes)
    fetchChunk([id], Math.max(opts.retainFrom, opts.now - MINUTE), { probe: true });
  await Promise.all(tasks);
  return { ...stats, watermarks, firstError };
}

/** Splits `ids` into station lists whose request URL stays within `maxUrlLength`. */
function chunkByUrl<R extends Timed>(
  source: RecordSource<R>,
  ids: readonly string[],
  span: { readonly from: number; readonly to: number; readonly maxUrlLength: number },
) {
  const { from, to, maxUrlLength: max } = span;
  const chunks: string[][] = [];
  const tooLong: string[] = [];
  let start = 0;
  while (start < ids.length) {
    const fits = (count: number) =>
      source.urlLength({
        stationIds: ids.slice(start, start + count),
        from: new Date(from),
        to: new Date(to),
      }) <= max;
    const count = longestFitting(ids.length - start, fits);
    if (count === 0) {
      tooLong.push(ids[start]!);
      start++;
      continue;
    }
    chunks.push(ids.slice(start, start + count));
    start += count;
  }
  return { chunks, tooLong };
}

/**
 * The largest `count` in [0, most] that `fits` (monotone: a URL only grows). Doubling, then
 * halving: each try builds a whole URL, and trying every count was n²/2 ids per chunk.
 */
function longestFitting(most: number, fits: (count: number) => boolean): number {
  let good = 0;
  let step = 1;
  while (good + step <= most && fits(good + step)) {
    good += step;
    step *= 2;
  }
  // fits(good) holds; fits(good + step) does not or lies beyond `most`.
  let bad = Math.min(good + step, most + 1);
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}
