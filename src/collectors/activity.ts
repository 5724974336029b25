/**
 * Unit activity, from the units collector to the summary collector, which skips requests whose
 * answer cannot have changed: a summary changes only when a unit record enters or leaves its window,
 * so it is the same when none of its stations has one in `[prevFrom, newFrom] ∪ [prevTo, newTo]`
 * (closed spans: errs on the side of asking). Records not fetched yet are caught at the first
 * refresh after, as spans are measured from the last real answer; a sample is re-asked to check.
 */
import { stationKey } from '../model/keys.ts';
import type { SerialForm, SortedColumns } from '../records/columns.ts';

/** A closed time span, epoch ms. */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/** The read-only question the summary collector asks. */
export interface UnitActivity {
  /** Every station is held by the units collector and none has a unit record in any span. */
  quiet(stationIds: readonly string[], spans: readonly Span[]): boolean;
}

/** The units collector's records: one sorted column set per station. */
export interface UnitRows {
  rowsOf(stationId: string): SortedColumns<SerialForm> | undefined;
}

interface Coverage {
  readonly rows: UnitRows;
  readonly stations: ReadonlySet<string>;
  /** Oldest record time held for every station. */
  readonly from: number;
}

/** The shared activity object; the units job updates it after each complete poll. */
export class ActivityBoard implements UnitActivity {
  private coverage: Coverage | undefined;

  /** Records that `rows` holds every unit record of `stationIds` from `from` on. */
  update(rows: UnitRows, stationIds: readonly string[], from: number): void {
    this.coverage = { rows, stations: new Set(stationIds.map(stationKey)), from };
  }

  /** After an incomplete poll: nothing is skipped until the next one. */
  clear(): void {
    this.coverage = undefined;
  }

  quiet(stationIds: readonly string[], spans: readonly Span[]): boolean {
    const c = this.coverage;
    if (c === undefined) return false;
    // A span reaching before what is held may have units nobody saw.
    if (spans.some((span) => span.to >= span.from && span.from < c.from)) return false;
    return stationIds.every((id) => c.stations.has(stationKey(id)) && !hasRecordIn(c.rows.rowsOf(id), spans));
  }
}

/** Both ends included; empty spans hold none. */
function hasRecordIn(rows: SortedColumns<SerialForm> | undefined, spans: readonly Span[]): boolean {
  if (rows === undefined) return false;
  return spans.some((span) => {
    if (span.to < span.from) return false;
    const [start, end] = rows.range(span.from, span.to + 1);
    return end > start;
  });
}
