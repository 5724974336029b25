/**
 * The limits a chart is in force with: given, a frozen baseline's once computed from complete
 * data, a hold's, or the rolling baseline's, computed again only when its inputs changed.
 */
import type { BaselineSpan, BaselineSpec, ChartBaseline } from './chart-baseline.ts';
import { givenLimits, type LimitsResult, limitsFromSums } from './limits.ts';

/** What decides a chart's limits. */
export interface LimitsSpec {
  readonly baseline: BaselineSpec;
  readonly minSamples: number;
  /** Compensate a baseline's positive lag-1 autocorrelation beyond 0.1 (src/spc/limits.ts). */
  readonly compensate: boolean;
}

/** What a poll changed about the chart's limits, for a log line. */
export type LimitsChange = 'established' | 'gained' | 'lost' | undefined;

/** The limits of one chart across polls. */
export class ChartLimits {
  private frozen: LimitsResult | undefined;
  private memo: LimitsResult | undefined;
  /** The same object every poll of a hold. */
  private held: LimitsResult | undefined;
  private hadLimits: boolean | undefined;

  constructor(
    private readonly spec: LimitsSpec,
    private readonly baseline: ChartBaseline,
  ) {}

  /** The limits in force at the poll. */
  at(at: BaselineSpan & { readonly nowMs: number; readonly complete: boolean }): LimitsResult {
    const b = this.spec.baseline;
    if (b.kind === 'given') return givenLimits(b);
    if (this.frozen !== undefined) return this.frozen;
    const hold = this.baseline.hold;
    if (hold !== undefined) {
      if (this.held === undefined || (this.held.ok && this.held.limits !== hold.limits))
        this.held = { ok: true, limits: hold.limits };
      return this.held;
    }
    const rolling = b.kind === 'rolling';
    const same = rolling && this.baseline.unchanged(at);
    if (same && this.memo !== undefined) return this.memo;
    const limits = limitsFromSums(this.baseline.sums(at), {
      minSamples: this.spec.minSamples,
      kind: b.kind,
      compensate: this.spec.compensate,
      anchor: this.baseline.anchor,
    });
    if (b.kind === 'frozen' && at.complete && at.nowMs >= b.toMs) {
      this.frozen = limits;
      this.baseline.close();
    }
    this.memo = rolling ? limits : undefined;
    return limits;
  }

  /** How `result` changes the limits of the last poll. */
  change(result: LimitsResult): LimitsChange {
    const had = this.hadLimits;
    this.hadLimits = result.ok;
    if (had === undefined) return result.ok ? 'established' : undefined;
    if (had === result.ok) return undefined;
    return result.ok ? 'gained' : 'lost';
  }
}
