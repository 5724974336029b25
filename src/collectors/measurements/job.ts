/**
 * The measurements collector's job: fetch new measurement records incrementally (re-reading
 * the whole longest window every reread_interval), keep the records of the longest window in
 * memory, and publish per-window statistics. A series stays known for `retention` after its
 * last record, so that it is exported with 0 samples instead of vanishing.
 */
import type { WindowSpec } from '../../config/schema.ts';
import { LabelValues } from '../../model/label-values.ts';
import type { Topology } from '../../model/topology.ts';
import { createRecordSync } from '../../records/sync.ts';
import { longestWindowMs, windowBounds } from '../../time/windows.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import type { Turns } from '../../util/turns.ts';
import type { CollectorContext, Job, PollContext, PollOutcome } from '../collector.ts';
import { RecordLabels } from '../record-labels.ts';
import { createControlCharts } from './control.ts';
import type { MeasurementResult } from './families.ts';
import { ValueHistograms } from './histograms.ts';
import { RecordCounters } from './record-counters.ts';
import { selectedFamiliesInTurns } from './selection.ts';
import { measurementWindow } from './stats.ts';
import { attributeClassifier, MeasurementStore } from './store.ts';

/** Creates the measurements job. */
export function createMeasurementsJob(ctx: CollectorContext): Job<PollContext, PollOutcome> {
  const { config, client, turns } = ctx;
  const settings = config.measurements;
  const names = settings.names.map((n) => n.name);
  const wanted = new Set(names);
  const mins = new Map(settings.names.map((n) => [n.name, n.minSamples]));
  const minSamples = (name: string) => mins.get(name) ?? settings.minSamples;
  // Created at the first poll: values count from then on (see histograms.ts).
  let histograms: ValueHistograms | undefined;
  const histogramNames = new Set(
    settings.histograms.enabled ? names.slice(0, settings.histograms.maxNames) : [],
  );
  const store = new MeasurementStore({
    attributeOf: attributeClassifier(settings.attributes.pass, settings.attributes.fail),
    onNew: (series, record) => histograms?.observe(series, record),
  });
  const counters = new RecordCounters();
  const control = createControlCharts(ctx, store);
  ctx.offerFlaggedCharts(() => control.flagged());
  // Slots, units and results become labels: cleaned as they arrive, before a store keys on them.
  const labels = new RecordLabels(
    new LabelValues({ redact: ctx.redact, logger: ctx.logger, collector: 'measurements' }),
  );
  const sync = createRecordSync<MeasurementRecord>({
    collector: 'measurements',
    source: {
      urlLength: (q) => client.urlLength('metrics', { ...q, names }),
      fetch: async (q) => labels.measurements(await client.metrics({ ...q, names })),
    },
    store: control.store,
    overlapMs: settings.overlapMs,
    rereadIntervalMs: settings.rereadIntervalMs,
    maxFutureSkewMs: config.upstream.maxFutureSkewMs,
    maxRecords: settings.maxRecordsPerRequest,
    maxUrlLength: config.upstream.maxUrlLength,
    logger: ctx.logger,
    turns,
    refused: ctx.refused,
    // The upstream filters by name; a record of another name would have no config.
    accept: (r) => wanted.has(r.name),
  });
  return {
    async poll({ topology, now, signal }) {
      if (histograms === undefined && histogramNames.size > 0) {
        histograms = new ValueHistograms({
          countFrom: now.getTime(),
          schema: settings.histograms.schema,
          maxBuckets: settings.histograms.maxBuckets,
          names: histogramNames,
        });
      }
      const fetched = await sync({
        stationIds: topology.stations.map((s) => s.id),
        now: now.getTime(),
        retainFrom: control.retainFrom(now.getTime(), now.getTime() - longestWindowMs(config.windows, now)),
        signal,
      });
      store.forgetIdleBefore(now.getTime() - settings.retentionMs);
      counters.add(fetched);
      const results = await measurementResults(topology, {
        store,
        windows: config.windows,
        now,
        minSamples,
        turns,
      });
      return {
        families: [
          ...(await selectedFamiliesInTurns(
            results,
            {
              selection: settings,
              windows: config.windows.map((w) => w.name),
              stations: counters.of(topology),
            },
            turns,
          )),
          ...(await control.families(topology, { nowMs: now.getTime(), complete: fetched.failures === 0 })),
          ...(histograms ? [histograms.family(topology, { bySlot: settings.bySlot })] : []),
        ],
        requests: fetched.requests,
        failures: fetched.failures,
        diagnostics: { labelValues: labels.take() },
      };
    },
  };
}

/** Stations whose statistics are computed between two turns of the event loop. */
const STATIONS_PER_TURN = 25;

/** What {@link measurementResults} computes the statistics from. */
interface ResultsOptions {
  readonly store: MeasurementStore;
  readonly windows: readonly WindowSpec[];
  /** The time of the poll: the windows end then. */
  readonly now: Date;
  /** The min_samples of a name. */
  readonly minSamples: (name: string) => number;
  readonly turns: Turns;
}

/** Every held series of every station in the topology, with its statistics per window. */
async function measurementResults(
  topology: Topology,
  { store, windows, now, minSamples, turns }: ResultsOptions,
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
        latest: series.latest,
        limits: series.limits,
        attributes: series.attributes,
        windows: bounds.map((b) => ({
          window: b.window,
          stats: measurementWindow(series.rows, b.from.getTime(), b.to.getTime()),
        })),
      });
    }
  }
  return out;
}
