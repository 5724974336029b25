/**
 * A memo of the units' walks, for long simulated runs (bench:pager): without it every request walks
 * again every unit its window may hold. The records served are the same, in the same order, but
 * shared between answers: nothing may change one in place (data scenarios copy what they change).
 */

import { getOrCreate } from '../util/maps.ts';
import { type UnitInfo, unitAt, type Visit, walkUnit } from './flow.ts';
import type { LineModel } from './plant.ts';
import type { SummaryCounts } from './summarize.ts';
import type { TimedUnitRecord } from './types.ts';

/** What is kept of one visit: its unit records, once built (they do not depend on the window). */
export interface VisitMemo {
  unitRecords?: readonly TimedUnitRecord[];
}

/**
 * What one unit adds to a summary of a station set when a window sees all its records there, and
 * the span that decides whether it does. Null counts: no record there.
 */
export interface UnitTallyMemo {
  readonly counts: SummaryCounts | null;
  readonly firstMs: number;
  readonly lastMs: number;
  readonly visibleMs: number;
}

/** One unit and every visit of its walk, in time order (no time limit), each with its memo. */
export interface WalkedUnit {
  /** Null when no unit entered in its slot (idle time). */
  readonly unit: UnitInfo | null;
  readonly visits: readonly Visit[];
  readonly memos: readonly VisitMemo[];
}

/** Walks of each line's most recent units, the oldest dropped beyond `hours` of the line's output. */
export class UnitWalks {
  readonly #seed: number;
  readonly #hours: number;
  readonly #lines = new Map<LineModel, { byIndex: Map<number, WalkedUnit>; newest: number }>();
  readonly #tallies = new Map<LineModel, Map<string, Map<number, UnitTallyMemo>>>();

  constructor(seed: number, opts: { readonly hours: number }) {
    this.#seed = seed;
    this.#hours = opts.hours;
  }

  /** Unit `k` of `line` and its whole walk, from the memo or walked now. */
  of(line: LineModel, k: number): WalkedUnit {
    const memo = getOrCreate(this.#lines, line, () => ({ byIndex: new Map(), newest: k }));
    const hit = memo.byIndex.get(k);
    if (hit !== undefined) return hit;
    const walked = this.#walk(line, k);
    memo.byIndex.set(k, walked);
    if (k > memo.newest) memo.newest = k;
    this.#evict(line, memo.byIndex, memo.newest);
    return walked;
  }

  /** The unit tallies of `line` for the station set `key`, kept as long as the units' walks. */
  talliesOf(line: LineModel, key: string): Map<number, UnitTallyMemo> {
    const tallies = getOrCreate(
      getOrCreate(this.#tallies, line, () => new Map()),
      key,
      () => new Map(),
    );
    const memo = this.#lines.get(line);
    if (memo !== undefined) this.#evict(line, tallies, memo.newest);
    return tallies;
  }

  #walk(line: LineModel, k: number): WalkedUnit {
    const unit = unitAt(this.#seed, line, k);
    const visits: Visit[] = [];
    if (unit !== null)
      walkUnit(this.#seed, line, { k, untilMs: Number.POSITIVE_INFINITY, onVisit: (v) => visits.push(v) });
    return { unit, visits, memos: visits.map(() => ({})) };
  }

  // Only when the memo has grown a quarter past its size, so that dropping costs little per walk.
  #evict(line: LineModel, byIndex: Map<number, unknown>, newest: number): void {
    const keep = Math.ceil((this.#hours * 3_600_000) / line.periodMs);
    if (byIndex.size <= keep * 1.25) return;
    for (const k of byIndex.keys()) if (k < newest - keep) byIndex.delete(k);
  }
}
