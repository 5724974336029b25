/**
 * The measurements collector's job: fetch new measurement records incrementally, keep the
 * records of the longest window in memory, and publish per-window statistics.
 */

import type { WindowSpec } from '../../config/schema.ts';
import { createRecordSync } from '../../records/sync.ts';
import { windowBounds } from '../../time/windows.ts';
import { windowParams } from '../../upstream/client.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import { yieldToLoop } from '../../util/turns.ts';
import type { CollectorJob, JobDeps } from '../collector.ts';
import type { Topology } from '../topology/types.ts';
import { type MeasurementResult, measurementFamilies } from './families.ts';
import { latestMeasurement, measurementWindow } from './stats.ts';
import { MeasurementStore } from './store.ts';

/** Creates the measurements job. */
export function createMeasurementsJob(deps: JobDeps): CollectorJob {
  const { config, client } = deps;
  const settings = config.measurements;
  const names = settings.names.map((n) => n.name);
  const wanted = new Set(names);
  const mins = new Map(settings.names.map((n) => [n.name, n.minSamples]));
  const minSamples = (name: string) => mins.get(name) ?? settings.minSamples;
  const store = new MeasurementStore();
  const sync = createRecordSync<MeasurementRecord>(deps, {
    collector: 'measurements',
    source: {
      params: (q) => [...windowParams(q), ...names.map((n): [string, string] => ['names', n])],
      url: (params) => client.url('/metrics', params),
      fetch: (q) => client.metrics({ ...q, names }),
    },
    store,
    overlapMs: settings.overlapMs,
    maxRecords: settings.maxRecordsPerRequest,
    // The upstream filters by name; a record of another name would have no config.
    accept: (r) => wanted.has(r.name),
  });
  return {
    name: 'measurements',
    intervalMs: settings.intervalMs,
    async poll(ctx) {
      const complete = await sync(ctx);
      const results = await measurementResults(ctx.topology, store, config.windows, ctx.now, minSamples);
      return { families: measurementFamilies(results), complete };
    },
  };
}

/** Stations whose statistics are computed between two turns of the event loop. */
const STATIONS_PER_TURN = 25;

/** Every held series of every station in the topology, with its statistics per window. */
async function measurementResults(
  topology: Topology,
  store: MeasurementStore,
  windows: readonly WindowSpec[],
  now: Date,
  minSamples: (name: string) => number,
): Promise<MeasurementResult[]> {
  const bounds = windows.map((w) => ({ window: w.name, ...windowBounds(w, now) }));
  const out: MeasurementResult[] = [];
  for (const [i, station] of topology.stations.entries()) {
    if (i > 0 && i % STATIONS_PER_TURN === 0) await yieldToLoop();
    for (const series of store.seriesOf(station.id)) {
      out.push({
        station: station.labels,
        name: series.name,
        slot: series.slot,
        unit: series.unit,
        minSamples: minSamples(series.name),
        latest: latestMeasurement(series.rows),
        windows: bounds.map((b) => ({
          window: b.window,
          stats: measurementWindow(series.rows, b.from.getTime(), b.to.getTime()),
        })),
      });
    }
  }
  return out;
}
