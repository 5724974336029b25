/**
 * The baseline side of a chart: the points that left its recent ones as bucketed sums, the shifts
 * held out of a rolling baseline after a detector's signal, and whether its inputs changed.
 */
import {
  BaselineBuckets,
  BaselineCollector,
  BUCKETS_PER_BASELINE,
  firstBucketAfter,
  type Grid,
} from './baseline.ts';
import type { BaselineSums, ControlLimits, GivenLimits } from './limits.ts';
import type { RecentPoints } from './points.ts';

/** Where the limits of a series come from. Times are Unix milliseconds. */
export type BaselineSpec =
  | { readonly kind: 'rolling'; readonly durationMs: number }
  | { readonly kind: 'frozen'; readonly fromMs: number; readonly toMs: number }
  | ({ readonly kind: 'given' } & GivenLimits);

/**
 * After a detector's signal the limits in force stay until no signal came for `hold`, so the
 * baseline does not learn the shift it has just found; then the shift's points become a gap.
 */
interface Hold {
  /** Estimated start of the shift, Unix ms. */
  readonly from: number;
  readonly limits: ControlLimits;
}

/** A held shift left out of a rolling baseline (both ends included). */
interface TimeGap {
  readonly from: number;
  readonly to: number;
}

/** Where one poll's baseline and evaluation window lie among the recent points. */
export interface BaselineSpan {
  /** Start of the evaluation window (exclusive), Unix ms. */
  readonly evalFrom: number;
  readonly evalStart: number;
  readonly evalEnd: number;
}

/** The baseline of one chart, over the chart's recent points. */
export class ChartBaseline {
  /** The chart's first value: the baseline's sums are deviations from it. */
  anchor = Number.NaN;
  hold: Hold | undefined;
  private buckets: BaselineBuckets | undefined;
  /** A rolling baseline's grid starts at the epoch, a frozen one's at its `from`. */
  private readonly grid: Grid;
  /** Held shifts still inside the baseline's reach, oldest first. */
  private gaps: TimeGap[] = [];
  /** No baseline needs more points: given limits, or a frozen baseline's computed. */
  private closed: boolean;
  /** What the rolling sums were last computed from: the same inputs give the same limits. */
  private readonly key = {
    buckets: -2,
    fromBucket: Number.NaN,
    prefix: -1,
    first: -1,
    end: -1,
    gaps: [] as TimeGap[],
  };
  private readonly collector = new BaselineCollector(0);

  constructor(
    private readonly spec: BaselineSpec,
    private readonly holdMs: number,
    private readonly points: RecentPoints,
  ) {
    this.closed = spec.kind === 'given';
    const width =
      spec.kind === 'frozen' ? spec.toMs - spec.fromMs : spec.kind === 'rolling' ? spec.durationMs : 1;
    this.grid = { originMs: spec.kind === 'frozen' ? spec.fromMs : 0, widthMs: width / BUCKETS_PER_BASELINE };
  }

  /** Bytes of the buckets. */
  get bytes(): number {
    return this.buckets?.bytes ?? 0;
  }

  /** Start of the held shift; +Infinity without a hold. */
  get heldFrom(): number {
    return this.hold?.from ?? Number.POSITIVE_INFINITY;
  }

  /** Whether the rolling sums' inputs are the last computation's; the key becomes this poll's. */
  unchanged(at: BaselineSpan): boolean {
    const start = at.evalFrom - (this.spec.kind === 'rolling' ? this.spec.durationMs : 0);
    const points = this.points;
    const fromBucket =
      points.length === 0 || start < points.timeColumn[0]! ? firstBucketAfter(this.grid, start) : Number.NaN;
    const buckets = this.buckets?.version ?? -1;
    const prefix = points.prefixVersion;
    const first = points.lowerBound(start + 1, at.evalStart);
    const k = this.key;
    const same =
      k.buckets === buckets &&
      Object.is(k.fromBucket, fromBucket) &&
      k.prefix === prefix &&
      k.first === first &&
      k.end === at.evalStart &&
      k.gaps === this.gaps;
    k.buckets = buckets;
    k.fromBucket = fromBucket;
    k.prefix = prefix;
    k.first = first;
    k.end = at.evalStart;
    k.gaps = this.gaps;
    return same;
  }

  /**
   * The baseline's sums: the buckets', then the recent points in it in time order, without the
   * held shifts. A rolling baseline's key must be this poll's ({@link ChartBaseline.unchanged}).
   */
  sums(at: BaselineSpan): BaselineSums {
    const b = this.spec;
    const into = this.collector.reset(this.anchor);
    if (b.kind === 'rolling') this.rollingSums(at.evalFrom - b.durationMs, at.evalStart);
    else if (b.kind === 'frozen') {
      const times = this.points.timeColumn;
      const values = this.points.valueColumn;
      this.buckets?.collect(0, into);
      for (let i = 0; i < at.evalEnd; i++) if (this.inPeriod(times[i]!)) into.point(values[i]!);
    }
    return into.sums;
  }

  /** A rolling baseline's sums from `start` (exclusive) to the recent point at `end`. */
  private rollingSums(start: number, end: number): void {
    const into = this.collector;
    const times = this.points.timeColumn;
    const values = this.points.valueColumn;
    // The start is exact among the recent points; older, it falls on a bucket's edge.
    if (this.points.length === 0 || start < times[0]!)
      this.buckets?.collect(firstBucketAfter(this.grid, start), into);
    const inGap = gapTest(this.gaps);
    // From the first recent point after the start, as unchanged() found it just before.
    for (let i = this.key.first; i < end; i++) {
      if (inGap(times[i]!)) into.gap();
      else into.point(values[i]!);
    }
  }

  /** A frozen baseline's limits are computed: its buckets are no longer needed. */
  close(): void {
    this.closed = true;
    this.buckets = undefined;
  }

  /** Takes the first `limit` recent points into the buckets when a baseline still needs them. */
  retire(limit: number): void {
    if (this.closed) return;
    const times = this.points.timeColumn;
    const values = this.points.valueColumn;
    this.buckets ??= new BaselineBuckets({ ...this.grid, capacity: BUCKETS_PER_BASELINE + 3 }, this.anchor);
    const sink = this.buckets;
    const inGap = gapTest(this.gaps);
    for (let i = 0; i < limit; i++) {
      const t = times[i]!;
      if (inGap(t)) sink.gap();
      else if (this.inPeriod(t)) sink.push(t, values[i]!);
    }
  }

  /** A detector signalled: a rolling baseline holds the limits in force, from the shift's start. */
  signalled(shiftFrom: number, limits: ControlLimits): void {
    if (this.spec.kind !== 'rolling' || this.holdMs <= 0) return;
    this.hold = {
      from: Math.min(shiftFrom, this.hold?.from ?? shiftFrom),
      limits: this.hold?.limits ?? limits,
    };
  }

  /**
   * Ends a hold when no signal came for `holdMs` (the shift becomes a gap), or when the shift has
   * lasted a whole baseline: then it is the process's new level, and the baseline learns it.
   */
  release(nowMs: number, evalFrom: number, lastSignal: number): void {
    if (this.spec.kind !== 'rolling') return;
    const from = evalFrom - this.spec.durationMs;
    const hold = this.hold;
    if (hold !== undefined && hold.from < from) this.hold = undefined;
    else if (hold !== undefined && nowMs - lastSignal > this.holdMs) {
      this.hold = undefined;
      // A new array: the key tells gaps apart by identity.
      this.gaps = [...this.gaps, { from: hold.from, to: lastSignal }];
    }
    if (this.gaps.length > 0) this.gaps = this.gaps.filter((g) => g.to >= from);
  }

  private inPeriod(t: number): boolean {
    const b = this.spec;
    return b.kind !== 'frozen' || (t >= b.fromMs && t < b.toMs);
  }
}

/** A test for times inside the gaps, to be asked in ascending time order. */
function gapTest(gaps: readonly TimeGap[]): (t: number) => boolean {
  if (gaps.length === 0) return () => false;
  let g = 0;
  return (t) => {
    while (g < gaps.length && gaps[g]!.to < t) g++;
    const gap = gaps[g];
    return gap !== undefined && t >= gap.from && t <= gap.to;
  };
}
