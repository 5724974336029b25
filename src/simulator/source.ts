/**
 * Where the simulator's answers come from: the synthetic plant, or recorded data (replay).
 * Routes, parameter validation and access checks are the same for both; only this differs.
 */
import type { PlantModel } from './plant.ts';
import { metricRecords, unitCounts, unitRecords, type Window } from './records.ts';
import type { SummaryCounts } from './summarize.ts';
import type { MetricRecordWire, PlantStation, SiteWire, SummaryWire, UnitRecordWire } from './types.ts';
import type { UnitWalks } from './unit-walks.ts';

/** Where a station sits, as access checks need it. */
type SourceStation = Pick<PlantStation, 'id' | 'siteId' | 'lineId'>;

/** Stations by lower-case id (their site ids lower-case too), in plant order. */
export function stationIndex(stations: readonly PlantStation[]): Map<string, SourceStation> {
  return new Map(
    stations.map(({ id, siteId, lineId }) => [
      id.toLowerCase(),
      { id: id.toLowerCase(), siteId: siteId.toLowerCase(), lineId },
    ]),
  );
}

/** The data behind the simulator's endpoints. */
export interface DataSource {
  /** Every site, as /sites returns them for a token that may read all. */
  readonly sites: readonly SiteWire[];
  /** Stations by (lower-case) id, in plant order. */
  readonly stations: ReadonlyMap<string, SourceStation>;
  /** Unit records of both directions in the window, sorted by time_created. */
  units(ids: readonly string[], w: Window): UnitRecordWire[];
  /** Measurement records in the window (optionally only `names`), sorted by time_created. */
  metrics(ids: readonly string[], w: Window, names?: readonly string[]): MetricRecordWire[];
  /** A summary answered as recorded, when the source has one for exactly this request. */
  recordedSummary?(ids: readonly string[], w: Window): SummaryWire | undefined;
  /** The counts of the summary of `units(ids, w)` without listing them; undefined when it cannot. */
  unitCounts?(ids: readonly string[], w: Window): SummaryCounts | undefined;
}

/** The synthetic plant as a data source; `walks` (and the summary by counts with it) changes no answer. */
export function plantSource(seed: number, model: PlantModel, walks?: UnitWalks): DataSource {
  return {
    sites: model.plant.sites,
    stations: stationIndex(model.plant.stations),
    units: (ids, w) => unitRecords({ seed, model, walks }, ids, w),
    metrics: (ids, w, names) => metricRecords({ seed, model, walks }, ids, { w, names }),
    // With the memo of walks only: that is the opt-in of long simulated runs.
    ...(walks === undefined ? {} : { unitCounts: (ids, w) => unitCounts({ seed, model, walks }, ids, w) }),
  };
}
