/**
 * Domain types of the upstream data, as the rest of the exporter sees them.
 * Raw envelopes never leave `src/upstream`: records are mapped here at the edge.
 */
import type { SUMMARY_FIELDS } from './schemas.ts';

/** A station, alone in a line or in a group; sites, lines and elements carry the same three fields. */
export interface StationRef {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

/** An element of a line: a single station, or a group of parallel stations. */
export type LineElement =
  | ({ readonly kind: 'station' } & StationRef)
  | ({ readonly kind: 'group'; readonly stations: readonly StationRef[] } & StationRef);

/** A production line: ordered elements. */
export interface Line extends StationRef {
  readonly elements: readonly LineElement[];
}

/** A site with its lines. */
export interface Site extends StationRef {
  readonly lines: readonly Line[];
}

/** Summary statistics of stations over a window; a field not sent as a number is left out, never 0. */
export type StationSummary = { readonly [K in keyof typeof SUMMARY_FIELDS]?: number };

/** What measurement and unit records share. */
interface RecordHead {
  readonly stationId: string;
  /** Null for no slot; an empty upstream slot is null too (Prometheus cannot tell them apart). */
  readonly slot: string | null;
  readonly serial: string;
  /** `time_created`, epoch ms; `inserted` is `time_inserted` when sent (not in the formal schema). */
  readonly time: number;
  readonly mode: string | null;
  readonly inserted?: number;
}

/** One measurement (an element of `GET /metrics`). */
export interface MeasurementRecord extends RecordHead {
  readonly name: string;
  /** The value as the upstream sent it. */
  readonly raw: string;
  /** The value parsed as a number; `undefined` when it is not numeric (`PASS`, empty). */
  readonly value: number | undefined;
  readonly unit: string;
  readonly type: string | null;
  readonly upper: number | undefined;
  readonly lower: number | undefined;
}

/** One unit record (an element of `GET /units`). */
export interface UnitRecord extends RecordHead {
  readonly direction: 'input' | 'output';
  readonly result: string | null;
  readonly unitType: string | null;
}

/** Records mapped from a list response, with the count of records that could not be mapped, by reason. */
export interface RecordList<T> {
  readonly records: T[];
  readonly skipped: Readonly<Record<string, number>>;
  /** Number of elements in the upstream's `data` array, mapped or not. */
  readonly received: number;
}
