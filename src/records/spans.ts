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
 * Counters of one fetch, per request: `requests` counts each request whose outcome is final
 * (answered, denied, failed for good or not sent), so `requests - failures` is the answers; a
 * request whose answer was replaced by smaller requests is counted in `splits` instead.
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
  readonly maxRecords: number;
  readonly minSpanMs: number;
  readonly onRecords: (records: readonly R[]) => void | Promise<void>;
  readonly signal?: AbortSignal;
  readonly stats: SpanStats;
  /** Stations refused with 403: a station refused alone is added, one that answers is cleared. */
  readonly refused?: RefusedStations;
  /** Epoch ms of the poll, for the refused stations' probe times. */
  readonly now?: number;
}

/** One span of time, epoch ms. */
export interface TimeSpan {
  readonly from: number;
  readonly to: number;
}

/** One request of {@link fetchSpan}: its span, and how deep in timeout halvings it is. */
export interface SpanRequest extends TimeSpan {
  /** How many times the span was halved after a timeout to get here (0 for a first request). */
  readonly timeoutSplits: number;
}

/**
 * A timed-out (or too large) span is halved at most this many times: a dead or hostile upstream
 * must not cost 2^n requests.
 */
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
    // The span and the context hold the window and the limits: no object to build.
    return canHalve(ctx, span)
      ? inParts(ctx, ids, span, splitCount(list.records, span, ctx))
      : byStations(ctx, ids, span);
  }
  ctx.stats.requests++;
  if (list.received >= ctx.maxRecords) ctx.stats.truncated++;
  if (ctx.refused) for (const id of ids) ctx.refused.accept(id);
  await ctx.onRecords(list.records);
}

/** Whether a span can be halved: halves never get shorter than the minimum span. */
function canHalve(ctx: { readonly minSpanMs: number }, span: TimeSpan): boolean {
  return span.to - span.from >= 2 * ctx.minSpanMs;
}

/**
 * What a failed request becomes: requests for fewer stations or a shorter span, a refused
 * station, or the failure, thrown.
 */
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

/** The span in two halves, one timeout halving deeper. */
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

/** The span in `k` parts of about the same length. */
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

/** The span for each half of the station list. */
function byStations<R extends Timed>(
  ctx: SpanContext<R>,
  ids: readonly string[],
  span: SpanRequest,
): Promise<void> {
  const half = Math.ceil(ids.length / 2);
  return settleAll([fetchSpan(ctx, ids.slice(0, half), span), fetchSpan(ctx, ids.slice(half), span)]);
}

/**
 * How many parts to split a span into when its answer reached the record limit. Two
 * estimates, the larger wins, each with a 25 % margin: the received records' time extent
 * shows how much of the span one answer holds whatever order the upstream truncated in (a
 * quarter of the span: about four answers' worth), and an answer larger than the limit
 * holds at least that many records. Splitting once into enough parts, instead of halving
 * over and over, downloads the span about twice instead of once per halving. The parts are
 * sized by the smallest span and the records one answer holds.
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
