/**
 * The measurements job: fetches records incrementally, keeps the longest window in memory and
 * publishes per-window statistics. A series stays known for `retention` after its last record,
 * so that it is exported with 0 samples instead of vanishing.
 */
import type { Config } from '../../config/schema.ts';
import { LabelValues } from '../../model/label-values.ts';
import type { Topology } from '../../model/topology.ts';
import { createRecordSync, type SyncRequest, type SyncResult } from '../../records/sync.ts';
import { longestWindowMs, windowBounds } from '../../time/windows.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import type { Job, Needs, PollContext, PollOutcome } from '../collector.ts';
import { RecordLabels } from '../record-labels.ts';
import type { CapabilityMethod } from './capability.ts';
import { windowCapability } from './capability-methods.ts';
import { ControlCharts } from './control.ts';
import type { MeasurementResult } from './families.ts';
import { MEASUREMENT_FAMILIES } from './families.ts';
import { ValueHistograms } from './histograms.ts';
import { RecordCounters } from './record-counters.ts';
import { selectedFamiliesInTurns, windowsPerFamily } from './selection.ts';
import { measurementWindow } from './stats.ts';
import { attributeClassifier, type MeasurementSeries, MeasurementStore, VALUE } from './store.ts';

type RecordSync = (req: SyncRequest) => Promise<SyncResult>;

/** What the measurements job uses of the collector context. */
export type MeasurementsNeeds = Needs<
  'config' | 'client' | 'logger' | 'yielder' | 'refused' | 'redact' | 'offerFlaggedCharts' | 'products'
>;

/** The measurements job. */
export class MeasurementsJob implements Job<PollContext, PollOutcome> {
  readonly #ctx: MeasurementsNeeds;
  readonly #settings: Config['measurements'];
  readonly #minSamples: ReadonlyMap<string, number>;
  readonly #methods: ReadonlyMap<string, CapabilityMethod>;
  readonly #capability: CapabilityOptions;
  readonly #histogramNames: ReadonlySet<string>;
  // Created at the first poll: values count from then on (see histograms.ts).
  #histograms: ValueHistograms | undefined;
  readonly #store: MeasurementStore;
  readonly #counters = new RecordCounters();
  readonly #control: ControlCharts;
  // Slots, units and results become labels: cleaned as they arrive, before a store keys on them.
  readonly #labels: RecordLabels;
  readonly #sync: RecordSync;

  constructor(ctx: MeasurementsNeeds) {
    const settings = ctx.config.measurements;
    const names = settings.names.map((n) => n.name);
    this.#ctx = ctx;
    this.#settings = settings;
    this.#minSamples = new Map(settings.names.map((n) => [n.name, n.minSamples]));
    this.#methods = new Map(settings.names.map((n) => [n.name, n.capabilityMethod]));
    const perFamily = windowsPerFamily(
      settings,
      ctx.config.windows.map((w) => w.name),
    );
    const { ppk, pp, cpk, cp } = MEASUREMENT_FAMILIES;
    this.#capability = {
      method: (name) => this.#methods.get(name) ?? 'normal',
      exported: new Set([ppk, pp, cpk, cp].flatMap((f) => [...(perFamily.get(f.name) ?? [])])),
      normality: perFamily.get(MEASUREMENT_FAMILIES.adStatistic.name) ?? new Set(),
    };
    this.#histogramNames = new Set(
      settings.histograms.enabled ? names.slice(0, settings.histograms.maxNames) : [],
    );
    this.#store = new MeasurementStore(
      attributeClassifier(settings.attributes.pass, settings.attributes.fail),
    );
    this.#store.watch((series, record) => this.#histograms?.observe(series, record));
    const control = new ControlCharts(ctx, this.#store);
    this.#control = control;
    ctx.offerFlaggedCharts(() => control.flagged());
    this.#labels = new RecordLabels(
      new LabelValues({ redact: ctx.redact, logger: ctx.logger, collector: 'measurements' }),
    );
    this.#sync = this.#createSync(names);
  }

  #createSync(names: string[]): RecordSync {
    const { config, client } = this.#ctx;
    const settings = this.#settings;
    const wanted = new Set(names);
    return createRecordSync<MeasurementRecord>({
      collector: 'measurements',
      source: {
        urlLength: (q) => client.urlLength('metrics', { ...q, names }),
        fetch: async (q) => this.#labels.measurements(await client.metrics({ ...q, names })),
      },
      store: this.#control.store,
      overlapMs: settings.overlapMs,
      rereadIntervalMs: settings.rereadIntervalMs,
      maxFutureSkewMs: config.upstream.maxFutureSkewMs,
      maxRecords: settings.maxRecordsPerRequest,
      maxUrlLength: config.upstream.maxUrlLength,
      logger: this.#ctx.logger,
      yielder: this.#ctx.yielder,
      refused: this.#ctx.refused,
      // The upstream filters by name; a record of another name would have no config.
      accept: (r) => wanted.has(r.name),
    });
  }

  async poll({ topology, now, signal }: PollContext): Promise<PollOutcome> {
    const { config, yielder } = this.#ctx;
    const settings = this.#settings;
    this.#startHistograms(now);
    const limitsFile = await this.#control.refreshLimits();
    const fetched = await this.#sync({
      stationIds: topology.stations.map((s) => s.id),
      now: now.getTime(),
      retainFrom: this.#control.retainFrom(
        now.getTime(),
        now.getTime() - longestWindowMs(config.windows, now),
      ),
      signal,
    });
    this.#store.forgetIdleBefore(now.getTime() - settings.retentionMs);
    this.#counters.add(fetched);
    const results = await this.#results(topology, now);
    const selection = {
      selection: settings,
      windows: config.windows.map((w) => w.name),
      stations: this.#counters.of(topology),
      methods: this.#methods,
    };
    const histograms = this.#histograms;
    return {
      families: [
        ...(await selectedFamiliesInTurns(results, selection, yielder)),
        ...(await this.#control.families(topology, {
          nowMs: now.getTime(),
          complete: fetched.failures === 0,
        })),
        ...(histograms ? [await histograms.family(topology, { bySlot: settings.bySlot, yielder })] : []),
      ],
      requests: fetched.requests,
      failures: fetched.failures,
      diagnostics: {
        labelValues: this.#labels.take(),
        ...(limitsFile === 'unchanged' ? {} : { limitsFileLoaded: limitsFile === 'loaded' }),
        recordsSkipped: skippedOf(this.#control.takeSkipped()),
      },
    };
  }

  /** Each series' statistics per window, computed in slices between yields to the event loop. */
  async #results(topology: Topology, now: Date): Promise<MeasurementResult[]> {
    const { config, yielder } = this.#ctx;
    const bounds = config.windows.map((w) => ({ window: w.name, ...windowBounds(w, now) }));
    const out: MeasurementResult[] = [];
    const work = { done: 0 };
    for (const [i, station] of topology.stations.entries()) {
      if (i > 0 && i % STATIONS_PER_SLICE === 0) await yielder.yieldToLoop();
      for (const series of this.#store.seriesOf(station.id)) {
        if (work.done >= CAPABILITY_WORK_PER_SLICE) {
          work.done = 0;
          await yielder.yieldToLoop();
        }
        const minSamples = this.#minSamples.get(series.name) ?? this.#settings.minSamples;
        out.push({
          station: station.labels,
          name: series.name,
          slot: series.slot,
          unit: series.unit,
          minSamples,
          latest: series.latest,
          limits: series.limits,
          attributes: series.attributes,
          windows: seriesWindows(series, bounds, { capability: this.#capability, minSamples, work }),
        });
      }
    }
    return out;
  }

  #startHistograms(now: Date): void {
    if (this.#histograms !== undefined || this.#histogramNames.size === 0) return;
    const settings = this.#settings.histograms;
    this.#histograms = new ValueHistograms({
      countFrom: now.getTime(),
      schema: settings.schema,
      maxBuckets: settings.maxBuckets,
      names: this.#histogramNames,
    });
  }
}

/** Points charted per product that no chart took, as records skipped of GET /metrics. */
function skippedOf(skipped: ReadonlyMap<string, number>) {
  return [...skipped].map(([reason, count]) => ({ endpoint: 'metrics', reason, count }));
}

/** Stations whose statistics are computed between two yields to the event loop. */
const STATIONS_PER_SLICE = 25;

interface CapabilityOptions {
  readonly method: (name: string) => CapabilityMethod;
  /** Windows that export an index: a method other than `normal` reads values only there. */
  readonly exported: ReadonlySet<string>;
  readonly normality: ReadonlySet<string>;
}

/** Values read by the capability methods between yields: about 1 µs each (docs/capability.md). */
const CAPABILITY_WORK_PER_SLICE = 20_000;
/** A window's fixed share of that work (copies, set-up, the search for λ). */
const CAPABILITY_WORK_PER_WINDOW = 1000;

type WindowBounds = ReadonlyArray<{ readonly window: string; readonly from: Date; readonly to: Date }>;

/** Adds the values read to `work`. */
function seriesWindows(
  series: MeasurementSeries,
  bounds: WindowBounds,
  options: { capability: CapabilityOptions; minSamples: number; work: { done: number } },
): MeasurementResult['windows'] {
  const { capability, minSamples, work } = options;
  const method = capability.method(series.name);
  return bounds.map((b) => {
    const from = b.from.getTime();
    const to = b.to.getTime();
    const stats = measurementWindow(series.rows, from, to);
    const normality = capability.normality.has(b.window);
    // The normal method needs the statistics only; the others read the window's values.
    if ((method === 'normal' || !capability.exported.has(b.window)) && !normality) {
      return { window: b.window, stats };
    }
    work.done += CAPABILITY_WORK_PER_WINDOW + stats.samples;
    const values = () => numericValues(series.rows, from, to);
    const cap = windowCapability({ method, stats, limits: series.limits, minSamples, values, normality });
    return { window: b.window, stats, capability: cap };
  });
}

/** Numeric values with `from <= time < to`, in time order. */
function numericValues(rows: MeasurementSeries['rows'], from: number, to: number): Float64Array {
  const [start, end] = rows.range(from, to);
  const out = new Float64Array(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const v = rows.value(VALUE, i);
    if (!Number.isNaN(v)) out[n++] = v;
  }
  return out.subarray(0, n);
}
