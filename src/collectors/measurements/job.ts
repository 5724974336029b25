/**
 * The measurements collector's job: fetch new measurement records incrementally, keep the
 * records of the longest window in memory, and publish per-window statistics.
 */
import type { WindowSpec } from '../../config/schema.ts';
import { createRecordSync } from '../../records/sync.ts';
import { longestWindowMs, windowBounds } from '../../time/windows.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import type { Turns } from '../../util/turns.ts';
import type { CollectorContext, Job, PollContext, PollOutcome } from '../collector.ts';
import type { Topology } from '../topology/types.ts';
import type { MeasurementResult } from './families.ts';
import { selectedFamilies } from './selection.ts';
import { latestMeasurement, measurementWindow } from './stats.ts';
import { MeasurementStore } from './store.ts';

/** Creates the measurements job. */
export function createMeasurementsJob(ctx: CollectorContext): Job<PollContext, PollOutcome> {
  const { config, client, turns } = ctx;
  const settings = config.measurements;
  const names = settings.names.map((n) => n.name);
  const wanted = new Set(names);
  const mins = new Map(settings.names.map((n) => [n.name, n.minSamples]));
  const minSamples = (name: string) => mins.get(name) ?? settings.minSamples;
  const store = new MeasurementStore();
  const sync = createRecordSync<MeasurementRecord>({
    collector: 'measurements',
    source: {
      urlLength: (q) => client.urlLength('metrics', { ...q, names }),
      fetch: (q) => client.metrics({ ...q, names }),
    },
    store,
    overlapMs: settings.overlapMs,
    maxRecords: settings.maxRecordsPerRequest,
    maxUrlLength: config.upstream.maxUrlLength,
    logger: ctx.logger,
    turns,
    // The upstream filters by name; a record of another name would have no config.
    accept: (r) => wanted.has(r.name),
  });
  return {
    async poll({ topology, now, signal }) {
      const fetched = await sync({
        stationIds: topology.stations.map((s) => s.id),
        now: now.getTime(),
        retainFrom: now.getTime() - longestWindowMs(config.windows, now),
        signal,
      });
      const results = await measurementResults(topology, store, config.windows, now, minSamples, turns);
      return {
        families: selectedFamilies(
          results,
          settings,
          config.windows.map((w) => w.name),
        ),
        requests: fetched.requests,
        failures: fetched.failures,
      };
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
  turns: Turns,
): Promise<MeasurementResult[]> {
  const bounds = windows.map((w) => ({ window: w.name, ...windowBounds(w, now) }));
  const out: MeasurementResult[] = [];
  for (const [i, station] of topology.stations.entries()) {
    if (i > 0 && i % STATIONS_PER_TURN === 0) await turns.yieldToLoop();
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
