/**
 * Record fields that become labels, masked and capped as they arrive, before a store keys on them
 * (model/label-values.ts). Two values that read the same after it share a series, which is what a
 * hostile value deserves; a record's identity (station, serial, time) is never changed.
 */
import type { LabelValues } from '../model/label-values.ts';
import type { MeasurementRecord, RecordList, UnitRecord } from '../upstream/types.ts';

/** Distinct values remembered: slots, units and results are a handful per plant. */
const MAX_REMEMBERED = 10_000;

/** Cleans the label fields of fetched records. One per collector job. */
export class RecordLabels {
  readonly #values: LabelValues;
  /** Each distinct value's clean form, so that a record costs a map lookup per field. */
  #seen = new Map<string, string>();

  constructor(values: LabelValues) {
    this.#values = values;
  }

  /** The label values this job changed since the last call, by reason (see {@link LabelValues.take}). */
  take() {
    return this.#values.take();
  }

  /** `list` with clean measurement label fields; records needing no change are kept as they are. */
  measurements(list: RecordList<MeasurementRecord>): RecordList<MeasurementRecord> {
    return this.#map(list, (r) => {
      const slot = this.#slot(r.slot);
      const unit = this.#text(r.unit, 'measurement unit');
      // The serial is the histogram exemplar's label (see units()).
      const serial = this.#values.masked(r.serial, 'unit serial');
      return slot === r.slot && unit === r.unit && serial === r.serial ? r : { ...r, slot, unit, serial };
    });
  }

  /**
   * `list` with clean unit record label fields. The serial is an exemplar's label: masked, not
   * cut (it is the unit's identity), and not remembered (each unit has its own).
   */
  units(list: RecordList<UnitRecord>): RecordList<UnitRecord> {
    return this.#map(list, (r) => {
      const slot = this.#slot(r.slot);
      const result = r.result === null ? null : this.#text(r.result, 'unit result');
      const serial = this.#values.masked(r.serial, 'unit serial');
      return slot === r.slot && result === r.result && serial === r.serial
        ? r
        : { ...r, slot, result, serial };
    });
  }

  #map<T>(list: RecordList<T>, clean: (r: T) => T): RecordList<T> {
    let changed = false;
    const records = list.records.map((r) => {
      const c = clean(r);
      changed ||= c !== r;
      return c;
    });
    return changed ? { ...list, records } : list;
  }

  #slot(slot: string | null): string | null {
    return slot === null ? null : this.#text(slot, 'slot');
  }

  #text(text: string, field: string): string {
    const known = this.#seen.get(text);
    if (known !== undefined) return known;
    // A hostile upstream sending ever new values must not grow the memory without bound.
    if (this.#seen.size >= MAX_REMEMBERED) this.#seen = new Map();
    const clean = this.#values.value(text, field);
    this.#seen.set(text, clean);
    return clean;
  }
}
