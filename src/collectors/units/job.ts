/** The units job: fetches unit records incrementally and publishes per-window counts. */

import { productLabeller } from '../../config/products-schema.ts';
import type { LabelSet } from '../../exposition/model.ts';
import { LabelValues } from '../../model/label-values.ts';
import type { Topology } from '../../model/topology.ts';
import type { SerialProducts } from '../../records/products.ts';
import { createRecordSync, type SyncRequest, type SyncResult } from '../../records/sync.ts';
import { longestWindowMs, windowBounds } from '../../time/windows.ts';
import type { UnitRecord } from '../../upstream/types.ts';
import type { Job, Needs, PollContext, PollOutcome } from '../collector.ts';
import { RecordCounters } from '../measurements/record-counters.ts';
import { RecordLabels } from '../record-labels.ts';
import { UnitCusums } from './cusum.ts';
import { kindsOf, type UnitResult, unitFamilies } from './families.ts';
import { type UnitKind, unitWindow } from './stats.ts';
import { UnitStore } from './store.ts';
import { UnitTally } from './tally.ts';

// The upstream returns only output records unless asked; inputs are needed too.
const DIRECTIONS = ['input', 'output'] as const;

type RecordSync = (req: SyncRequest) => Promise<SyncResult>;

/** What the units job uses of the collector context. */
export type UnitsNeeds = Needs<
  | 'config'
  | 'client'
  | 'logger'
  | 'yielder'
  | 'refused'
  | 'redact'
  | 'activity'
  | 'offerLastUnitTime'
  | 'shard'
  | 'products'
>;

/** The units job: its store, tally and CUSUM signals live as long as the job. */
export class UnitsJob implements Job<PollContext, PollOutcome> {
  readonly #ctx: UnitsNeeds;
  // Created at the first poll: records count from then on (see tally.ts).
  #tally: UnitTally | undefined;
  // Created with the tally: signals count from the first poll on, history only warms them up.
  #cusums: UnitCusums | undefined;
  readonly #store: UnitStore;
  readonly #counters = new RecordCounters();
  // Slots, units and results become labels: cleaned as they arrive, before a store keys on them.
  readonly #labels: RecordLabels;
  readonly #sync: RecordSync;
  readonly #productOf: ((unitType: string | null) => string) | undefined;
  readonly #serialProducts: SerialProducts | undefined;

  constructor(ctx: UnitsNeeds) {
    this.#ctx = ctx;
    const { products } = ctx.config;
    const labelOf = productLabeller(products.allow);
    this.#productOf = products.label ? labelOf : undefined;
    // Fed whenever products are configured, so that a job's reuse after a reload depends on the
    // products section alone.
    const index = products.allow.length > 0 ? ctx.products : undefined;
    // A new job reads every record again: the index starts over with this job's labels.
    index?.restart();
    this.#serialProducts = index;
    const store = new UnitStore({
      onNew: (record) => {
        this.#tally?.count(record);
        this.#cusums?.offer(record);
        index?.set(record.serial, labelOf(record.unitType));
      },
      productOf: this.#productOf,
    });
    this.#store = store;
    ctx.offerLastUnitTime((id) => store.lastUnitTime(id));
    this.#labels = new RecordLabels(
      new LabelValues({ redact: ctx.redact, logger: ctx.logger, collector: 'units' }),
    );
    this.#sync = this.#createSync();
  }

  #createSync(): RecordSync {
    const { config, client } = this.#ctx;
    return createRecordSync<UnitRecord>({
      collector: 'units',
      source: {
        urlLength: (q) => client.urlLength('units', { ...q, directions: DIRECTIONS }),
        fetch: async (q) => this.#labels.units(await client.units({ ...q, directions: DIRECTIONS })),
      },
      store: this.#store,
      overlapMs: config.units.overlapMs,
      rereadIntervalMs: config.units.rereadIntervalMs,
      maxFutureSkewMs: config.upstream.maxFutureSkewMs,
      // Units share the measurements' assumed result-size limit: the upstream publishes none.
      maxRecords: config.measurements.maxRecordsPerRequest,
      maxUrlLength: config.upstream.maxUrlLength,
      logger: this.#ctx.logger,
      yielder: this.#ctx.yielder,
      refused: this.#ctx.refused,
    });
  }

  async poll({ topology, now, signal }: PollContext): Promise<PollOutcome> {
    const { config, yielder } = this.#ctx;
    const store = this.#store;
    const tally = this.#startCounting(now);
    const stationIds = topology.stations.map((s) => s.id);
    const retainFrom = now.getTime() - longestWindowMs(config.windows, now);
    const fetched = await this.#sync({ stationIds, now: now.getTime(), retainFrom, signal });
    if (fetched.failures === 0) {
      this.#ctx.activity.update(store, stationIds, retainFrom);
      this.#serialProducts?.cover({ from: retainFrom, to: now.getTime() });
    } else this.#ctx.activity.clear();
    this.#counters.add(fetched);
    await this.#cusums?.update(topology, now.getTime());
    const results = await this.#results(topology, now);
    return {
      families: [
        // The skipped-record counters count from the first poll, as the tally does.
        ...(await unitFamilies(results, {
          stations: this.#counters.of(topology),
          countersFrom: tally.createdMs,
          yielder,
        })),
        await tally.family(topology, knownKinds(results), { yielder }),
        ...(this.#cusums?.families() ?? []),
      ],
      requests: fetched.requests,
      failures: fetched.failures,
      diagnostics: { labelValues: this.#labels.take() },
    };
  }

  /** Each station's counts per window (by product too when products are a label), in slices. */
  #results(topology: Topology, now: Date): Promise<UnitResult[]> {
    const store = this.#store;
    const products = this.#productOf !== undefined;
    const resultOf = (code: number) => store.resultOf(code);
    const productOf = (code: number) => store.productOfCode(code);
    // Each window's options for unitWindow, built once per poll.
    const bounds = this.#ctx.config.windows.map((w) => {
      const { from, to } = windowBounds(w, now);
      const b = { window: w.name, from: from.getTime(), to: to.getTime(), resultOf };
      return products ? { ...b, productOf } : b;
    });
    const none = products
      ? { records: new Map(), serials: 0, serialsByProduct: new Map<string, number>() }
      : { records: new Map(), serials: 0 };
    return this.#ctx.yielder.map(topology.stations, STATIONS_PER_SLICE, (station) => {
      const rows = store.rowsOf(station.id);
      return {
        station: station.labels,
        lastUnitTime: store.lastUnitTime(station.id),
        windows: bounds.map((b) => ({ window: b.window, counts: rows ? unitWindow(rows, b) : none })),
      };
    });
  }

  /** Created at the first poll, kept after. */
  #startCounting(now: Date): UnitTally {
    const { config, yielder, shard } = this.#ctx;
    this.#tally ??= new UnitTally({ countFrom: now.getTime(), productOf: this.#productOf });
    const tally = this.#tally;
    if (config.units.cusum.enabled) {
      this.#cusums ??= new UnitCusums({
        cusum: config.units.cusum,
        targets: config.targets,
        countFrom: tally.createdMs,
        yielder,
        lineCharts: shard.total > 1 ? 'off' : 'on',
      });
    }
    return tally;
  }
}

/** The kinds held per station: the counter exports them at 0 before their first increment. */
function knownKinds(results: readonly UnitResult[]): (station: LabelSet) => Iterable<UnitKind> {
  const byLabels = new Map(results.map((r) => [r.station, r]));
  return (station) => {
    const r = byLabels.get(station);
    return r ? kindsOf(r).values() : [];
  };
}

/** Stations whose counts are computed between two yields to the event loop. */
const STATIONS_PER_SLICE = 50;
