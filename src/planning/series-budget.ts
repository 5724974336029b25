/**
 * The series budget (`planning.max_series`): past it, whole families are left out of /metrics,
 * lowest priority first (each collector declares its own), so that one target never outgrows what
 * Prometheus will take; the exporter never refuses to start over it.
 */
import type { Collector } from '../collectors/collector.ts';
import { COLLECTORS } from '../collectors/index.ts';
import type { Family } from '../exposition/model.ts';
import { seriesOf } from '../exposition/render.ts';

/** The families `collectors` let the budget drop (`costs.drops`), lowest priority first. */
export function seriesDropOrder(collectors: readonly Collector[] = COLLECTORS): string[] {
  const ranks = collectors.flatMap((c) => c.costs.drops ?? []);
  return [...ranks].sort((a, b) => a.priority - b.priority).map((r) => r.family);
}

/** Families in the order they are dropped, as the shipped collectors declare them. */
export const SERIES_DROP_ORDER: readonly string[] = seriesDropOrder();

/** Series counts of every published part, and what the limit drops. */
export class SeriesBudget {
  private readonly counts = new Map<string, ReadonlyMap<string, number>>();
  private dropped: ReadonlyMap<string, number> = new Map();

  constructor(
    /** `planning.max_series`; undefined: no limit. */
    readonly maxSeries: number | undefined,
    private readonly order: readonly string[] = SERIES_DROP_ORDER,
  ) {}

  /** The families of `part` that fit, given the other parts' last counts (filtered at their next publish). */
  filter(part: string, families: readonly Family[]): readonly Family[] {
    if (this.maxSeries === undefined) return families;
    const own = new Map<string, number>();
    // As Prometheus stores them (seriesOf): a native histogram is one series.
    for (const f of families) own.set(f.desc.name, (own.get(f.desc.name) ?? 0) + seriesOf([f]));
    this.counts.set(part, own);
    this.dropped = this.decide(this.maxSeries);
    return families.filter((f) => !this.dropped.has(f.desc.name));
  }

  /** Series dropped per family name. */
  droppedFamilies(): ReadonlyMap<string, number> {
    return this.dropped;
  }

  private decide(max: number): Map<string, number> {
    const byFamily = new Map<string, number>();
    for (const part of this.counts.values()) {
      for (const [name, n] of part) byFamily.set(name, (byFamily.get(name) ?? 0) + n);
    }
    return familiesOver(byFamily, this.order, max);
  }
}

/** The families of `byFamily` that `order` drops, with their series, until the rest is at most `max`. */
export function familiesOver(
  byFamily: ReadonlyMap<string, number>,
  order: readonly string[],
  max: number,
): Map<string, number> {
  let total = [...byFamily.values()].reduce((sum, n) => sum + n, 0);
  const out = new Map<string, number>();
  for (const name of order) {
    if (total <= max) break;
    const n = byFamily.get(name) ?? 0;
    if (n === 0) continue;
    out.set(name, n);
    total -= n;
  }
  return out;
}
