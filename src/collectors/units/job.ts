/**
 * The units collector's job: fetch new unit records of both directions incrementally, keep
 * the records of the longest window in memory, and publish per-window counts.
 */
import type { WindowSpec } from '../../config/schema.ts';
import type { LabelSet } from '../../exposition/model.ts';
import { LabelValues } from '../../model/label-values.ts';
import type { Topology } from '../../model/topology.ts';
import { createRecordSync } from '../../records/sync.ts';
import { longestWindowMs, windowBounds } from '../../time/windows.ts';
import type { UnitRecord } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import type { CollectorContext, Job, PollContext, PollOutcome } from '../collector.ts';
import { RecordCounters } from '../measurements/record-counters.ts';
import { RecordLabels } from '../record-labels.ts';
import { UnitCusums } from './cusum.ts';
import { kindsOf, type UnitResult, unitFamilies } from './families.ts';
import { unitWindow } from './stats.ts';
import { UnitStore } from './store.ts';
import { UnitTally } from './tally.ts';

// The upstream returns only output records unless asked; inputs are needed too.
const DIRECTIONS = ['input', 'output'] as const;

/** Creates the units job. */
export function createUnitsJob(ctx: CollectorContext): Job<PollContext, PollOutcome> {
  const { config, client, yielder } = ctx;
  // Created at the first poll: records count from then on (see tally.ts).
  let tally: UnitTally | undefined;
  // Created with the tally: signals count from the first poll on, history only warms them up.
  let cusums: UnitCusums | undefined;
  const store = new UnitStore({
    onNew: (record) => {
      tally?.count(record);
      cusums?.offer(record);
    },
  });
  const counters = new RecordCounters();
  ctx.offerLastUnitTime((id) => store.lastUnitTime(id));
  // Slots, units and results become labels: cleaned as they arrive, before a store keys on them.
  const labels = new RecordLabels(
    new LabelValues({ redact: ctx.redact, logger: ctx.logger, collector: 'units' }),
  );
  const sync = createRecordSync<UnitRecord>({
    collector: 'units',
    source: {
      urlLength: (q) => client.urlLength('units', { ...q, directions: DIRECTIONS }),
      fetch: async (q) => labels.units(await client.units({ ...q, directions: DIRECTIONS })),
    },
    store,
    overlapMs: config.units.overlapMs,
    rereadIntervalMs: config.units.rereadIntervalMs,
    maxFutureSkewMs: config.upstream.maxFutureSkewMs,
    // Units share the measurements' assumed result-size limit: the upstream publishes none.
    maxRecords: config.measurements.maxRecordsPerRequest,
    maxUrlLength: config.upstream.maxUrlLength,
    logger: ctx.logger,
    yielder,
    refused: ctx.refused,
  });
  return {
    async poll({ topology, now, signal }) {
      tally ??= new UnitTally({ countFrom: now.getTime() });
      if (config.units.cusum.enabled) {
        cusums ??= new UnitCusums({
          cusum: config.units.cusum,
          targets: config.targets,
          countFrom: tally.createdMs,
          yielder,
          lineCharts: ctx.shard.total > 1 ? 'off' : 'on',
        });
      }
      const stationIds = topology.stations.map((s) => s.id);
      const retainFrom = now.getTime() - longestWindowMs(config.windows, now);
      const fetched = await sync({ stationIds, now: now.getTime(), retainFrom, signal });
      if (fetched.failures === 0) ctx.activity.update(store, stationIds, retainFrom);
      else ctx.activity.clear();
      counters.add(fetched);
      await cusums?.update(topology, now.getTime());
      const results = await unitResults(topology, { store, windows: config.windows, now, yielder });
      return {
        families: [
          // The skipped-record counters count from the first poll, as the tally does.
          ...unitFamilies(results, counters.of(topology), tally.createdMs),
          tally.family(topology, knownKinds(results)),
          ...(cusums?.families() ?? []),
        ],
        requests: fetched.requests,
        failures: fetched.failures,
        diagnostics: { labelValues: labels.take() },
      };
    },
  };
}

/**
 * The kinds of unit record (direction, result) held for each station, by the station's labels:
 * the counter exports them at 0 before their first increment.
 */
function knownKinds(
  results: readonly UnitResult[],
): (station: LabelSet) => Iterable<{ direction: string; result: string }> {
  const byLabels = new Map(results.map((r) => [r.station, r]));
  return (station) => {
    const r = byLabels.get(station);
    return r ? kindsOf(r).values() : [];
  };
}

/** Stations whose counts are computed between two yields to the event loop. */
const STATIONS_PER_SLICE = 50;

/** What {@link unitResults} counts from. */
interface ResultsOptions {
  readonly store: UnitStore;
  readonly windows: readonly WindowSpec[];
  /** The time of the poll: the windows end then. */
  readonly now: Date;
  readonly yielder: LoopYielder;
}

/** Every station of the topology with its counts per window (zero when nothing is held). */
function unitResults(
  topology: Topology,
  { store, windows, now, yielder }: ResultsOptions,
): Promise<UnitResult[]> {
  const resultOf = (code: number) => store.resultOf(code);
  // Each window's options for unitWindow, built once per poll.
  const bounds = windows.map((w) => {
    const { from, to } = windowBounds(w, now);
    return { window: w.name, from: from.getTime(), to: to.getTime(), resultOf };
  });
  return yielder.map(topology.stations, STATIONS_PER_SLICE, (station) => {
    const rows = store.rowsOf(station.id);
    return {
      station: station.labels,
      lastUnitTime: store.lastUnitTime(station.id),
      windows: bounds.map((b) => ({
        window: b.window,
        counts: rows ? unitWindow(rows, b) : { records: new Map(), serials: 0 },
      })),
    };
  });
}
