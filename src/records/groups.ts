/**
 * One add's records grouped by where they go (a series, a station), read group by group as each
 * merge's row batch: one index array for the whole add, not an array per group.
 */
import type { RowBatch, SerialForm, SortedColumns } from './columns.ts';

interface GroupedRecord {
  readonly time: number;
  readonly serial: string;
}

/** How {@link RecordGroups} groups and reads records. */
export interface GroupingOptions<R, G> {
  /** Where record `i` goes; called once per record, in order. */
  readonly target: (r: R, i: number) => G;
  /** Column `c` of record `i` (NaN for none). */
  readonly value: (i: number, c: number) => number;
}

/** Records grouped by target, each group in the records' order; {@link select} picks the group read. */
export class RecordGroups<R extends GroupedRecord, G> implements RowBatch {
  readonly #records: readonly R[];
  readonly #value: (i: number, c: number) => number;
  /** In order of their first record. */
  readonly targets: readonly G[];
  /** Record indexes, group after group. */
  readonly #order: Int32Array;
  /** Where each group starts in the order, and the end. */
  readonly #starts: Int32Array;
  #group = 0;
  #from = 0;
  #to = 0;

  constructor(records: readonly R[], opts: GroupingOptions<R, G>) {
    this.#records = records;
    this.#value = opts.value;
    const numbers = new Map<G, number>();
    const targets: G[] = [];
    const groupOf = new Int32Array(records.length);
    records.forEach((r, i) => {
      const target = opts.target(r, i);
      let g = numbers.get(target);
      if (g === undefined) {
        g = targets.push(target) - 1;
        numbers.set(target, g);
      }
      groupOf[i] = g;
    });
    this.targets = targets;
    // A counting sort: stable, so each group keeps the records' order.
    const starts = new Int32Array(targets.length + 1);
    for (const g of groupOf) starts[g + 1] = (starts[g + 1] as number) + 1;
    for (let g = 0; g < targets.length; g++)
      starts[g + 1] = (starts[g + 1] as number) + (starts[g] as number);
    const next = starts.slice(0, targets.length);
    const order = new Int32Array(records.length);
    groupOf.forEach((g, i) => {
      const at = next[g] as number;
      order[at] = i;
      next[g] = at + 1;
    });
    this.#starts = starts;
    this.#order = order;
  }

  /** Makes group `g` (an index of {@link targets}) the rows read. */
  select(g: number): void {
    this.#group = g;
    this.#from = this.#starts[g] as number;
    this.#to = this.#starts[g + 1] as number;
  }

  /** Merges each group into its target's columns; `onNew` hears each new record. Returns the added. */
  mergeInto(
    columnsOf: (target: G) => SortedColumns<SerialForm>,
    onNew?: (target: G, record: R) => void,
  ): number {
    const heard = onNew && ((j: number) => onNew(this.targets[this.#group] as G, this.record(j)));
    let added = 0;
    this.targets.forEach((target, g) => {
      this.select(g);
      added += columnsOf(target).merge(this, heard);
    });
    return added;
  }

  get length(): number {
    return this.#to - this.#from;
  }

  /** Row `j` of the selected group: its record. */
  record(j: number): R {
    return this.#records[this.#index(j)] as R;
  }

  time(j: number): number {
    return this.record(j).time;
  }

  serial(j: number): string {
    return this.record(j).serial;
  }

  value(j: number, c: number): number {
    return this.#value(this.#index(j), c);
  }

  #index(j: number): number {
    return this.#order[this.#from + j] as number;
  }
}
