/**
 * Unit activity, shared read-only between the units collector (which holds the unit records) and
 * the summary collector (which skips requests whose answer cannot have changed).
 *
 * A station summary over a window counts the unit records inside it, so it can only change when a
 * unit record enters the window (at its end) or leaves it (at its start). Between a previous answer
 * for `[prevFrom, prevTo]` and a new one for `[newFrom, newTo]`, the answer is the same when no unit
 * record of its stations lies in `[prevFrom, newFrom] ∪ [prevTo, newTo]`. Spans are closed, which
 * errs on the side of asking.
 *
 * What the units collector has not fetched yet (records after its last poll, records later than its
 * overlap) it cannot report; a change there is picked up at the first refresh after it has been
 * fetched, because the spans are always measured from the previous real answer. The summary
 * collector re-asks a sample of skipped requests to measure how often that assumption fails.
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
  /** True when every station is held by the units collector and none has a unit record in any span. */
  quiet(stationIds: readonly string[], spans: readonly Span[]): boolean;
}

/** Where the units collector keeps its records: one sorted column set per station. */
export interface UnitRows {
  rowsOf(stationId: string): SortedColumns<SerialForm> | undefined;
}

/** What the units collector held after its last complete poll. */
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

  /** Forgets the coverage (after an incomplete poll), so that nothing is skipped until the next one. */
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

/** Whether a station's rows hold a record in one of the spans (both ends included; empty spans hold none). */
function hasRecordIn(rows: SortedColumns<SerialForm> | undefined, spans: readonly Span[]): boolean {
  if (rows === undefined) return false;
  return spans.some((span) => {
    if (span.to < span.from) return false;
    const [start, end] = rows.range(span.from, span.to + 1);
    return end > start;
  });
}
