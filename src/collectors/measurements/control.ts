/**
 * Control charts of the measurements collector. The chart itself is src/spc's; the collector keeps
 * which names are charted, how long the store keeps them (recent points only), labels and families.
 */
import type { Logger } from 'pino';
import type { ChartLimits } from '../../config/limits-schema.ts';
import type { Config } from '../../config/schema.ts';
import type { Family, LabelSet } from '../../exposition/model.ts';
import type { StationNode, Topology } from '../../model/topology.ts';
import type { ProductLookup } from '../../records/products.ts';
import { serialHash32 } from '../../records/serials.ts';
import type { RecordStore } from '../../records/types.ts';
import {
  type ChartOutcome,
  type ChartSpec,
  ControlChart,
  type ControlLimits,
  type DetectorParams,
} from '../../spc/index.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import type { FlaggedChart } from '../collector.ts';
import { ApprovedLimits, type LimitsRefresh } from './approved-limits.ts';
import {
  type ControlOutcome,
  controlFamilies,
  EVENT_RULE_NAMES,
  type SeriesLabels,
} from './control-families.ts';
import { type LimitsSource, limitsSource } from './limits-families.ts';
import { type GateSeries, ProductGate, type ReleasedPoint, type SkippedPoints } from './product-gate.ts';
import { bySeriesOrder, type MeasurementStore, stationKey, VALUE } from './store.ts';

/** Points charted between two yields to the event loop (a few milliseconds of work). */
const POINTS_PER_TURN = 50_000;

interface ControlPoll {
  readonly nowMs: number;
  /** Fetched without failures: a frozen baseline's limits are computed once, from complete data. */
  readonly complete: boolean;
}

/** A `measurements.control.names` entry. */
interface Entry {
  readonly pattern: RegExp;
  readonly spec: ChartSpec;
  readonly params: DetectorParams;
  readonly byProduct: boolean;
}

interface Charted {
  readonly stationId: string;
  readonly name: string;
  readonly slot: string | null;
  readonly product: string | null;
  readonly key: string;
  readonly entry: Entry;
  readonly chart: ControlChart;
  /** Undefined: the name's baseline. Replaced in place when a new file changes no limit. */
  approved: ChartLimits | undefined;
  /** Kept while the station's labels are the same object: rebuilding them was much of a poll's cost. */
  labels?: SeriesLabels & { readonly base: LabelSet };
  /** Updated in place: an object per chart and poll was garbage at every poll. */
  outcome?: { -readonly [K in keyof ControlOutcome]: ControlOutcome[K] };
  source?: {
    readonly base: LabelSet;
    readonly approved: ChartLimits | undefined;
    readonly source: LimitsSource;
  };
}

interface StationCharts {
  readonly bySeries: Map<string, Charted>;
  /** Exposition order, rebuilt when a chart is added. */
  ordered: Charted[] | undefined;
}

/**
 * One {@link ControlChart} per charted series, fed each record once, when new, and computed at every
 * poll in slices between yields to the event loop, so that scrapes do not wait.
 */
export class ControlCharts {
  /** The store the record sync must use: it keeps each name as long as its chart needs. */
  readonly store: RecordStore<MeasurementRecord>;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #yielder: LoopYielder;
  readonly #control: Config['measurements']['control'];
  readonly #entries: readonly Entry[];
  /** Which entry each name matches (the first); null when none. */
  readonly #entryOfName = new Map<string, Entry | null>();
  /** Entries whose frozen baseline was computed from complete data: their records are no longer kept. */
  readonly #frozenDone = new Set<Entry>();
  /** How far back the store keeps each charted name, and every other name. */
  #keeps = new Map<string, number>();
  #windowFrom = Number.NEGATIVE_INFINITY;
  #stationIds: ReadonlySet<string> = new Set();
  readonly #measurements: MeasurementStore;
  readonly #redact: (text: string) => string;
  readonly #limits: ApprovedLimits;
  #limitsVersion = 0;
  readonly #stations = new Map<string, StationCharts>();
  /** Charts whose first limits came at this poll: counted, then logged once. */
  #established = 0;
  #flagged: FlaggedChart[] = [];
  /** Points waiting for their unit's product; absent when no name is charted per product. */
  readonly #gate: ProductGate | undefined;

  /** `products` absent: no product is ever known, and the charts per product get no points. */
  constructor(
    ctx: {
      readonly config: Config;
      readonly logger: Logger;
      readonly yielder: LoopYielder;
      readonly redact: (text: string) => string;
      readonly products?: ProductLookup;
    },
    store: MeasurementStore,
  ) {
    this.#config = ctx.config;
    this.#measurements = store;
    this.#redact = ctx.redact;
    this.#logger = ctx.logger;
    this.#yielder = ctx.yielder;
    const control = ctx.config.measurements.control;
    this.#control = control;
    this.#entries = control.names.map((n) => ({
      pattern: n.pattern,
      spec: {
        baseline: n.baseline,
        minSamples: n.minSamples,
        evaluationWindowMs: control.evaluationWindowMs,
        rules: control.rules,
        compensate: control.compensate,
      },
      params: { cusum: n.cusum, ewma: n.ewma },
      byProduct: n.byProduct,
    }));
    this.#limits = new ApprovedLimits(control.limitsFile, ctx.logger);
    // Records older than a name keeps go to a chart still loading its history, or are dropped.
    this.store =
      control.names.length === 0
        ? store
        : {
            add: (records) => store.add(this.#retain(records)),
            evictBefore: (t) => {
              for (const id of this.#stationIds)
                for (const s of store.seriesOf(id)) s.rows.evictBefore(Math.max(t, this.#keepFor(s.name)));
              store.evictBefore(t);
            },
            retainStations: (ids) => {
              this.#stationIds = ids;
              store.retainStations(ids);
            },
            size: () => store.size(),
          };
    this.#gate = this.#control.names.some((n) => n.byProduct)
      ? new ProductGate(ctx.products ?? NO_PRODUCTS)
      : undefined;
    if (this.#control.names.length === 0) return;
    store.watch((_series, r) => this.#takeNew(r, r.value ?? Number.NaN, recordKey(r.serial), r.serial));
    // Charts built over a store that holds records already start from them (serials kept as hash32).
    for (const s of store.allSeries())
      for (let i = 0; i < s.rows.length; i++)
        this.#takeNew({ ...s, time: s.rows.time(i) }, s.rows.value(VALUE, i), s.rows.serialKey(i) as number);
  }

  /**
   * Rereads the approved-limits file when it changed and moves charts to their new limits; call
   * before the sync, every poll, so that the charts the sync creates start with them.
   */
  async refreshLimits(): Promise<LimitsRefresh> {
    if (this.#control.names.length === 0) return 'unchanged';
    const refreshed = await this.#limits.refresh();
    if (this.#limits.version !== this.#limitsVersion) {
      this.#limitsVersion = this.#limits.version;
      this.#matchApprovals();
    }
    return refreshed;
  }

  /**
   * A chart whose limits changed starts again (event counters at 0) from the store's recent points,
   * which the rules need; a rolling one learns its baseline from the points that come.
   */
  #matchApprovals(): void {
    for (const station of this.#stations.values())
      for (const [key, charted] of station.bySeries) {
        const approved = this.#approvedOf(charted);
        if (sameLimits(approved, charted.approved)) {
          charted.approved = approved;
          continue;
        }
        const fresh = this.#newCharted(charted, approved);
        station.bySeries.set(key, fresh);
        station.ordered = undefined;
        this.#refill(fresh, charted);
        this.#logger.info(
          {
            station_id: charted.stationId,
            name: charted.name,
            slot: charted.slot,
            source: approved === undefined ? charted.entry.spec.baseline.kind : 'approved',
          },
          'control limits changed with the limits file',
        );
      }
  }

  #approvedOf(s: Pick<Charted, 'stationId' | 'name' | 'slot' | 'product'>): ChartLimits | undefined {
    return this.#limits.current?.approved({
      station: stationKey(s.stationId),
      metric: s.name,
      slot: s.slot,
      product: s.product,
    });
  }

  #newCharted(
    s: Pick<Charted, 'stationId' | 'name' | 'slot' | 'product' | 'key' | 'entry'>,
    approved: ChartLimits | undefined,
  ): Charted {
    const spec = approved === undefined ? s.entry.spec : approvedSpec(s.entry.spec, approved);
    const chart = new ControlChart({
      spec,
      detectors: s.entry.params,
      holdMs: this.#control.holdMs,
      overlapMs: this.#config.measurements.overlapMs,
    });
    const { stationId, name, slot, product, key, entry } = s;
    return { stationId, name, slot, product, key, entry, chart, approved };
  }

  /**
   * Feeds a replacing chart the store's points of its series. A chart per product takes `old`'s
   * recent points: the store keeps a serial's hash, so it cannot tell which points are the product's.
   */
  #refill(charted: Charted, old: Charted): void {
    if (charted.product !== null) {
      old.chart.forEachRecentPoint((time, value, key) => charted.chart.add(time, value, key));
      return;
    }
    for (const s of this.#measurements.seriesOf(stationKey(charted.stationId))) {
      if (s.name !== charted.name || s.slot !== charted.slot) continue;
      for (let i = 0; i < s.rows.length; i++)
        charted.chart.add(s.rows.time(i), s.rows.value(VALUE, i), s.rows.serialKey(i) as number);
    }
  }

  /**
   * The oldest record time this poll must fetch, given the start of the longest window; call it
   * before the sync, every poll. Without charted names: `windowFromMs`.
   */
  retainFrom(nowMs: number, windowFromMs: number): number {
    const overlapMs = this.#config.measurements.overlapMs;
    const next = new Map<string, number>();
    let oldest = windowFromMs;
    for (const { name } of this.#config.measurements.names) {
      const entry = this.#entryOf(name);
      if (entry === null) continue;
      // Older records reach a chart only while it loads its history (#retain).
      const recent = ControlChart.recentFrom({ spec: entry.spec, overlapMs, nowMs });
      next.set(name, Math.min(windowFromMs, recent));
      // A chart per product reaches back only as far as the units job holds unit records.
      const from = this.#chartFrom(entry, nowMs);
      oldest = Math.min(oldest, windowFromMs, recent, entry.byProduct ? Math.max(from, windowFromMs) : from);
    }
    this.#keeps = next;
    this.#windowFrom = windowFromMs;
    return oldest;
  }

  #keepFor(name: string): number {
    return this.#keeps.get(name) ?? this.#windowFrom;
  }

  /** The records the store keeps; the older ones go to their charts' history. */
  #retain(records: readonly MeasurementRecord[]): MeasurementRecord[] {
    const kept: MeasurementRecord[] = [];
    for (const r of records) {
      const keep = this.#keepFor(r.name);
      if (r.time >= keep) kept.push(r);
      else this.#takeHistory(r, keep);
    }
    return kept;
  }

  /** Null when the name is not charted. */
  #entryOf(name: string): Entry | null {
    let e = this.#entryOfName.get(name);
    if (e === undefined) {
      e = this.#entries.find((n) => n.pattern.test(name)) ?? null;
      this.#entryOfName.set(name, e);
    }
    return e;
  }

  /** How far back an entry's chart reads. */
  #chartFrom(entry: Entry, nowMs: number): number {
    const b = entry.spec.baseline;
    const evalFrom = nowMs - entry.spec.evaluationWindowMs;
    if (b.kind === 'rolling') return evalFrom - b.durationMs;
    if (b.kind === 'frozen' && !this.#frozenDone.has(entry)) return b.fromMs;
    // Runs that started before the window are seen when they complete inside it.
    return evalFrom - entry.spec.evaluationWindowMs;
  }

  #markFrozenDone({ nowMs, complete }: ControlPoll): void {
    if (!complete) return;
    for (const entry of this.#entries) {
      const b = entry.spec.baseline;
      if (b.kind !== 'frozen' || this.#frozenDone.has(entry) || nowMs < b.toMs) continue;
      this.#frozenDone.add(entry);
      this.#logger.info(
        {
          pattern: entry.pattern.source,
          from: new Date(b.fromMs).toISOString(),
          to: new Date(b.toMs).toISOString(),
        },
        'frozen control baseline computed; its records are no longer kept',
      );
    }
  }

  /** Points charted per product skipped since the last call, by reason. */
  takeSkipped(): SkippedPoints {
    return this.#gate?.takeSkipped() ?? new Map();
  }

  /** For the status page. */
  flagged(): readonly FlaggedChart[] {
    return this.#flagged;
  }

  /** Charts held, and the bytes of their history (recent points and baseline buckets). */
  history(): { readonly charts: number; readonly bytes: number } {
    let charts = 0;
    let bytes = 0;
    for (const s of this.#stations.values())
      for (const c of s.bySeries.values()) {
        charts++;
        bytes += c.chart.historyBytes;
      }
    return { charts, bytes };
  }

  /** Charts every charted series of the topology's stations at the poll. */
  async families(topology: Topology, poll: ControlPoll): Promise<Family[]> {
    if (this.#control.names.length === 0) return [];
    this.#gate?.release(poll.nowMs, (p) => this.#takeReleased(p));
    const outcomes: ControlOutcome[] = [];
    const flags: FlaggedChart[] = [];
    const seen = new Set<string>();
    let work = 0;
    for (const station of topology.stations) {
      const id = stationKey(station.id);
      const charts = this.#stations.get(id);
      if (charts === undefined) continue;
      seen.add(id);
      charts.ordered ??= [...charts.bySeries.values()].sort(bySeriesOrder);
      for (const charted of charts.ordered) {
        const done = this.#chart(charted, station.labels, poll);
        outcomes.push(done);
        const flag = flagOf(station, charted, done.chart.limits);
        if (flag !== undefined) flags.push(flag);
        work += done.chart.work;
        if (work >= POINTS_PER_TURN) {
          work = 0;
          await this.#yielder.yieldToLoop();
        }
      }
    }
    this.#flagged = flags;
    this.#markFrozenDone(poll);
    if (this.#established > 0)
      this.#logger.info({ series: this.#established }, 'control baselines established');
    this.#established = 0;
    this.#forget(seen, poll.nowMs);
    return controlFamilies(outcomes, this.#control);
  }

  /** Created on the series' first record; undefined when not charted. */
  #chartOf(r: GateSeries, product: string | null = null): Charted | undefined {
    const entry = this.#entryOf(r.name);
    if (entry === null || entry.byProduct !== (product !== null)) return undefined;
    const id = stationKey(r.stationId);
    let station = this.#stations.get(id);
    if (station === undefined) {
      station = { bySeries: new Map(), ordered: undefined };
      this.#stations.set(id, station);
    }
    const series = r.slot === null ? r.name : `${r.name}\u0000${r.slot}`;
    const key = product === null ? series : `${series}\u0001${product}`;
    let charted = station.bySeries.get(key);
    if (charted === undefined) {
      const identity = { stationId: r.stationId, name: r.name, slot: r.slot, product, key, entry };
      charted = this.#newCharted(identity, this.#approvedOf(identity));
      station.bySeries.set(key, charted);
      station.ordered = undefined;
    }
    return charted;
  }

  /**
   * A record new to the store; charted per product, it waits for its unit's product (without the
   * serial, as when replayed from the store's hashes, it is no point).
   */
  #takeNew(r: GateSeries & { readonly time: number }, value: number, key: number, serial?: string) {
    if (this.#gate !== undefined && this.#entryOf(r.name)?.byProduct === true) {
      if (serial !== undefined && Number.isFinite(value))
        this.#gate.offer(r, { time: r.time, value, serial, key });
      return;
    }
    const chart = this.#chartOf(r)?.chart;
    chart?.add(r.time, value, chart.isLoading ? key : 0);
  }

  #takeReleased(p: ReleasedPoint) {
    const chart = this.#chartOf(p.series, p.product)?.chart;
    chart?.add(p.time, p.value, chart.isLoading ? p.key : 0);
  }

  #takeHistory(r: MeasurementRecord, keep: number) {
    const chart = r.value === undefined ? undefined : this.#chartOf(r)?.chart;
    if (chart === undefined || r.value === undefined) return;
    chart.foldHistoryBefore(keep);
    chart.addHistory(r.time, r.value, recordKey(r.serial));
  }

  #chart(charted: Charted, station: LabelSet, poll: ControlPoll): ControlOutcome {
    const series = labelsOf(charted, station);
    const chart = charted.chart.evaluate(poll);
    this.#logChange(charted, chart);
    const source = this.#sourceOf(charted, series.labels);
    charted.outcome ??= { metric: charted.name, series, source, chart };
    const out = charted.outcome;
    out.series = series;
    out.source = source;
    out.chart = chart;
    return out;
  }

  /** Cached on the chart while its labels and its approved entry stay the same objects. */
  #sourceOf(charted: Charted, labels: LabelSet): LimitsSource {
    const hit = charted.source;
    if (hit !== undefined && hit.base === labels && hit.approved === charted.approved) return hit.source;
    const source = limitsSource(labels, {
      kind: charted.entry.spec.baseline.kind,
      approved: charted.approved,
      redact: this.#redact,
    });
    charted.source = { base: labels, approved: charted.approved, source };
    return source;
  }

  /** First limits are counted, then logged once; later changes per series. */
  #logChange(charted: Charted, o: ChartOutcome) {
    if (o.change === 'established') this.#established++;
    if (o.change !== 'gained' && o.change !== 'lost') return;
    const where = {
      station_id: charted.stationId,
      name: charted.name,
      slot: charted.slot,
      product: charted.product,
    };
    const r = o.result;
    if (r.ok)
      this.#logger.info(
        {
          ...where,
          baseline: charted.approved === undefined ? charted.entry.spec.baseline.kind : 'approved',
          center: r.limits.center,
          sigma: r.limits.sigma,
          samples: r.limits.samples,
        },
        'new control baseline',
      );
    else this.#logger.info({ ...where, reason: r.reason }, 'control limits lost');
  }

  /** Forgets charts of departed stations and those whose newest point is past reach and retention. */
  #forget(seen: ReadonlySet<string>, nowMs: number) {
    const retentionMs = this.#config.measurements.retentionMs;
    for (const [id, charts] of this.#stations) {
      if (!seen.has(id)) {
        this.#stations.delete(id);
        continue;
      }
      // Not the map's entries: they made an array per chart.
      for (const c of charts.ordered ?? [...charts.bySeries.values()]) {
        const reach = Math.max(retentionMs, nowMs - this.#chartFrom(c.entry, nowMs));
        if (c.chart.lastTime >= nowMs - reach) continue;
        charts.bySeries.delete(c.key);
        charts.ordered = undefined;
      }
    }
  }
}

/** The study's measured shape calibrates the detectors as a rolling baseline's would. */
function approvedSpec(spec: ChartSpec, a: ChartLimits): ChartSpec {
  const { center, ucl, lcl, sigma, calibration } = a;
  const given = { kind: 'given' as const, center, ucl, lcl, sigma };
  return { ...spec, baseline: calibration === null ? given : { ...given, shape: calibration } };
}

/** Same limits and calibration: the chart keeps running. */
function sameLimits(a: ChartLimits | undefined, b: ChartLimits | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const same = a.center === b.center && a.sigma === b.sigma && a.ucl === b.ucl && a.lcl === b.lcl;
  const [p, q] = [a.calibration, b.calibration];
  if (p === null || q === null) return same && p === q;
  return (
    same &&
    p.sigma === q.sigma &&
    p.phi === q.phi &&
    p.skewness === q.skewness &&
    p.excessKurtosis === q.excessKurtosis
  );
}

/** Without the units job's index nothing is ever covered or known. */
const NO_PRODUCTS: ProductLookup = { getByKey: () => undefined, coverage: undefined };

function labelsOf(charted: Charted, station: LabelSet): SeriesLabels {
  const hit = charted.labels;
  if (hit !== undefined && hit.base === station) return hit;
  const withName = station.with('metric', charted.name);
  const withSlot = charted.slot === null ? withName : withName.with('slot', charted.slot);
  const labels = charted.product === null ? withSlot : withSlot.with('product', charted.product);
  const events = EVENT_RULE_NAMES.map((r) => labels.with('rule', r));
  charted.labels = { base: station, labels, events, sparse: [] };
  return charted.labels;
}

/** With time and value, how a loading chart recognises history fetched again; the store holds it too. */
const recordKey = serialHash32;

/** Flagged when its baseline breaks an assumption of the documented rates. */
function flagOf(
  station: Pick<StationNode, 'name' | 'site' | 'line'>,
  series: Pick<Charted, 'stationId' | 'name' | 'slot'>,
  l: ControlLimits | undefined,
): FlaggedChart | undefined {
  if (l === undefined) return undefined;
  const phi = l.autocorrelation;
  const autocorrelated = phi !== undefined && l.autocorrelated === true;
  if (!autocorrelated && l.quantized !== true) return undefined;
  return {
    site: station.site.name,
    line: station.line.name,
    station: station.name,
    stationId: series.stationId,
    metric: series.name,
    slot: series.slot,
    ...(autocorrelated ? { autocorrelation: { phi, compensated: l.compensatedPhi !== undefined } } : {}),
    ...(l.quantized === true && l.resolution !== undefined
      ? { quantized: { resolution: l.resolution, sigma: l.sigma } }
      : {}),
  };
}
