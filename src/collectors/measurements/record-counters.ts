/** Cumulative per-station counts of future and late records, for the `..._records_total` counters. */
import type { Topology } from '../../model/topology.ts';
import type { StationRecordCounts } from './families.ts';
import { stationKey } from './store.ts';

/** Counts of records dated in the future and records that arrived late, since the exporter started. */
export class RecordCounters {
  private readonly future = new Map<string, number>();
  private readonly late = new Map<string, number>();

  /** Adds one sync's counts (keyed by lower-case station id). */
  add(sync: {
    readonly future: ReadonlyMap<string, number>;
    readonly late: ReadonlyMap<string, number>;
  }): void {
    for (const [id, n] of sync.future) this.future.set(id, (this.future.get(id) ?? 0) + n);
    for (const [id, n] of sync.late) this.late.set(id, (this.late.get(id) ?? 0) + n);
  }

  /** Every station of the topology with its counts, 0 included, so that the counters exist from the start. */
  of(topology: Topology): StationRecordCounts[] {
    return topology.stations.map((s) => ({
      station: s.labels,
      future: this.future.get(stationKey(s.id)) ?? 0,
      late: this.late.get(stationKey(s.id)) ?? 0,
    }));
  }
}
