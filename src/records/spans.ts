/**
 * Fetching one span of records for one station list: an answer at the record limit is split
 * into parts sized from the answer, a timed-out span is halved a few times, and a 403/404 for
 * a list is narrowed down to the station it is about.
 */
import { UpstreamError } from '../upstream/errors.ts';
import type { RecordList } from '../upstream/types.ts';
import type { RefusedStations } from './refused.ts';
import type { RecordSource, Timed } from './types.ts';

/**
 * Counters of one fetch: `requests` counts each request with a final outcome, so
 * `requests - failures` is the answers; one replaced by smaller requests counts in `splits`.
 */
export interface SpanStats {
  requests: number;
  /** Requests that brought no answer: failed for good, or not sent. */
  failures: number;
  /** Of the failures, requests never sent (circuit open, or a URL too long for one station). */
  notSent: number;
  /** Spans or station lists split because an answer was truncated or timed out. */
  splits: number;
  /** Answers still truncated at the smallest span for a single station, kept as they were. */
  truncated: number;
}

/** What every span of one fetch shares. */
export interface SpanContext<R extends Timed> {
  readonly source: RecordSource<R>;
  /** Answers with at least this many records are taken as truncated. */
  readonly maxRecords: number;
  readonly minSpanMs: number;
  /** Receives each answer's records as soon as it arrives (awaited, so it may yield). */
  readonly onRecords: (records: readonly R[]) => void | Promise<void>;
  readonly signal?: AbortSignal;
  readonly stats: SpanStats;
  /** Stations refused with 403 (the one station alone). */
  readonly refused?: RefusedStations;
  /** Epoch ms of the poll, for the refused stations' probe times. */
  readonly now?: number;
}

/** One span of time, epoch ms. */
export interface TimeSpan {
  readonly from: number;
  readonly to: number;
}

/** One request of {@link fetchSpan}. */
export interface SpanRequest extends TimeSpan {
  /** How many times the span was halved after a timeout to get here. */
  readonly timeoutSplits: number;
}

/** Timeout halvings at most: a dead or hostile upstream must not cost 2^n requests. */
const MAX_TIMEOUT_SPLITS = 3;

/** Fetches one span for one station list, splitting it while answers look truncated. */
export async function fetchSpan<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
): Promise<void> {
  let list: RecordList<R>;
  try {
    list = await ctx.source.fetch({
      stationIds: ids,
      from: new Date(span.from),
      to: new Date(span.to),
      signal: ctx.signal,
    });
  } catch (err) {
    return afterFailure(ctx, ids, span, err);
  }
  if (list.received >= ctx.maxRecords && (canHalve(ctx, span) || ids.length > 1)) {
    ctx.stats.splits++;
    return canHalve(ctx, span)
      ? inParts(ctx, ids, span, splitCount(list.records, span, ctx))
      : byStations(ctx, ids, span);
  }
  ctx.stats.requests++;
  if (list.received >= ctx.maxRecords) ctx.stats.truncated++;
  if (ctx.refused) for (const id of ids) ctx.refused.accept(id);
  await ctx.onRecords(list.records);
}

function canHalve(ctx: { readonly minSpanMs: number }, span: TimeSpan): boolean {
  return span.to - span.from >= 2 * ctx.minSpanMs;
}

/** A failed request becomes requests for fewer stations or a shorter span, a refusal, or a throw. */
function afterFailure<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
  err: unknown,
): Promise<void> | undefined {
  if (isDenied(err) && ids.length > 1) {
    // One forbidden or unknown station fails the whole list: find it, keep the others.
    ctx.stats.splits++;
    return byStations(ctx, ids, span);
  }
  if (isDenied(err)) {
    ctx.stats.requests++;
    if ((err as UpstreamError).status === 403) ctx.refused?.refuse(ids[0]!, ctx.now ?? Date.now());
    return undefined;
  }
  // A timeout or an answer over the size or item limit: ask for less, a half span at a time.
  const tooMuch = err instanceof UpstreamError && (err.reason === 'timeout' || err.reason === 'too_large');
  if (tooMuch && canHalve(ctx, span) && span.timeoutSplits < MAX_TIMEOUT_SPLITS) {
    ctx.stats.splits++;
    return halves(ctx, ids, span);
  }
  countFailure(ctx.stats, err);
  throw err;
}

function halves<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
): Promise<void> {
  const { from, to } = span;
  const mid = from + Math.floor((to - from) / 2);
  const timeoutSplits = span.timeoutSplits + 1;
  return settleAll([
    fetchSpan(ctx, ids, { from, to: mid, timeoutSplits }),
    fetchSpan(ctx, ids, { from: mid, to, timeoutSplits }),
  ]);
}

function inParts<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
  k: number,
): Promise<void> {
  const { from, to, timeoutSplits } = span;
  const step = (to - from) / k;
  const bounds = Array.from({ length: k + 1 }, (_, i) => (i === k ? to : from + Math.round(i * step)));
  return settleAll(
    bounds.slice(0, -1).map((b, i) => fetchSpan(ctx, ids, { from: b, to: bounds[i + 1]!, timeoutSplits })),
  );
}

function byStations<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
): Promise<void> {
  const half = Math.ceil(ids.length / 2);
  return settleAll([fetchSpan(ctx, ids.slice(0, half), span), fetchSpan(ctx, ids.slice(half), span)]);
}

/**
 * How many parts to split a span whose answer reached the limit into: the larger of two
 * estimates with a 25 % margin, the records' time extent and their count over the limit.
 * Splitting once downloads the span about twice, instead of once per halving.
 */
export function splitCount(
  records: readonly Timed[],
  window: TimeSpan,
  { minSpanMs, maxRecords }: { readonly minSpanMs: number; readonly maxRecords: number },
): number {
  const { from, to } = window;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    if (r.time < min) min = r.time;
    if (r.time > max) max = r.time;
  }
  const span = to - from;
  const covered = Math.max(max - min, 1);
  const byTime = Number.isFinite(covered) ? Math.ceil((span / covered) * 1.25) : 2;
  const byCount = Math.ceil((records.length / maxRecords) * 1.25);
  return Math.max(2, Math.min(Math.max(byTime, byCount), 64, Math.floor(span / minSpanMs)));
}

/** Counts one request that brought no answer, and whether it was sent at all. */
export function countFailure(stats: SpanStats, err: unknown): void {
  stats.requests++;
  stats.failures++;
  if (err instanceof UpstreamError && err.reason === 'circuit_open') stats.notSent++;
}

/** Waits for every part, then fails with the first failure: parts that succeed still deliver. */
export async function settleAll(parts: Promise<void>[]): Promise<void> {
  const results = await Promise.allSettled(parts);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** True for answers that mean "no data for you here", not a failure of the upstream. */
function isDenied(err: unknown): boolean {
  return err instanceof UpstreamError && (err.status === 403 || err.status === 404);
}
