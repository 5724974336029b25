/**
 * The yield and retry CUSUMs: per line and station, a Bernoulli CUSUM (src/spc/bernoulli.ts) per
 * kind against its own level (shrunk toward its target while its history is thin). Trials:
 * retry_ratio, each output record (bad: a retest); first_pass_yield and final_yield, each unit
 * (bad: its first / latest result at the station, on the line at any station, is not pass).
 * A unit is decided `settle` after its latest output, so the state is the units in flight and
 * each chart's hourly baseline counts (under 1 KB for 10 days).
 *
 * Signals are events counted once; the first poll's replay of the longest window warms the charts
 * up without counting, so a restart never notifies an old event again. The replay (about 240,000
 * records at 1,000 stations) and each new design are sliced between yields to the event loop.
 */

import type { Targets, TargetsConfig } from '../../config/targets-schema.ts';
import { UNIT_CUSUM_KINDS, type UnitsCusumConfig } from '../../config/units-cusum-schema.ts';
import type { Family, LabelSet, Sample } from '../../exposition/model.ts';
import type { Entity, StationNode, Topology } from '../../model/topology.ts';
import {
  type BernoulliDesign,
  designBernoulliCusum,
  OwnLevelCusum,
  type OwnLevelModel,
  onLogitGrid,
  shiftByOddsRatio,
} from '../../spc/bernoulli.ts';
import type { UnitRecord } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import { getOrCreate } from '../../util/maps.ts';
import { sortInSlices } from '../../util/sliced-sort.ts';
import { targetsOf } from '../targets/match.ts';
import { UNIT_CUSUM_FAMILIES } from './cusum-families.ts';

type CusumKind = (typeof UNIT_CUSUM_KINDS)[number];

/** Bounds of a bad-trial probability: a target of 100 % yield still leaves the chart a rate. */
const MIN_P = 0.001;
const MAX_P = 0.999;

const HOUR = 3_600_000;

/** Records evaluated between two yields to the event loop (a few microseconds each). */
const RECORDS_PER_SLICE = 4_000;
/** Lines and stations settled per slice: after the replay a station holds hundreds of units. */
const SUBJECTS_PER_SLICE = 25;

/** A chart and its signals counted as events. */
class Chart extends OwnLevelCusum {
  events = 0;

  count(trial: { readonly bad: boolean; readonly counted: boolean; readonly time: number }): void {
    if (this.add(trial) && trial.counted) this.events++;
  }
}

interface Result {
  readonly stationId: string;
  readonly serial: string;
  readonly time: number;
  readonly pass: boolean;
}

interface Flight {
  lastTime: number;
  firstBad: boolean;
  /** Stations that put the unit out (at a station: itself). */
  readonly seen: Set<string>;
  /** Stations whose latest result is not pass (at a station: itself or none). */
  readonly failing: Set<string>;
}

class Subject {
  readonly charts: Map<CusumKind, Chart>;
  readonly flights = new Map<string, Flight>();
  labels: LabelSet | undefined;

  constructor(models: (kind: CusumKind) => OwnLevelModel) {
    this.charts = new Map(UNIT_CUSUM_KINDS.map((k) => [k, new Chart(models(k))]));
  }

  chart(kind: CusumKind): Chart {
    return this.charts.get(kind)!;
  }
}

/** Options of {@link UnitCusums}. */
export interface UnitCusumsOptions {
  readonly cusum: UnitsCusumConfig;
  readonly targets: Pick<TargetsConfig, 'default' | 'rules'>;
  /** Epoch ms from which signals count: the exporter's start. */
  readonly countFrom: number;
  readonly yielder: LoopYielder;
  /** Off on sharded replicas: none sees a whole line's units. */
  readonly lineCharts: 'on' | 'off';
}

function prune(map: Map<string, Subject>, keep: ReadonlySet<string>): void {
  for (const id of map.keys()) if (!keep.has(id)) map.delete(id);
}

const byTime = (a: Result, b: Result) => a.time - b.time;

const isPass = (result: string) => result.trim().toLowerCase() === 'pass';

/** Records evaluated between two looks for settled units during one poll. */
const SETTLE_EVERY = 2048;

/** How many of `records` each serial has: a unit is open while some are still to be evaluated. */
async function resultsLeft(records: readonly Result[], yielder: LoopYielder): Promise<Map<string, number>> {
  const left = new Map<string, number>();
  await yielder.forEachSlice(records, RECORDS_PER_SLICE, (slice) => {
    for (const r of slice) left.set(r.serial, (left.get(r.serial) ?? 0) + 1);
  });
  return left;
}

function take(left: Map<string, number>, serial: string): void {
  const n = (left.get(serial) ?? 1) - 1;
  if (n > 0) left.set(serial, n);
  else left.delete(serial);
}

/** The yield and retry CUSUMs of every line and station. */
export class UnitCusums {
  private readonly opts: UnitCusumsOptions;
  private pending: Result[] = [];
  private readonly stations = new Map<string, Subject>();
  private readonly lines = new Map<string, Subject>();
  /** Designs by in-control and shifted rate: the same objects for the same targets. */
  private readonly designs = new Map<string, BernoulliDesign>();

  constructor(opts: UnitCusumsOptions) {
    this.opts = opts;
  }

  /** Takes a record the store had not held (the store's `onNew`); evaluated at the next poll. */
  offer(r: UnitRecord): void {
    // Only what a trial needs: the first poll offers hours of records before it evaluates them.
    if (r.direction === 'output' && r.result !== null)
      this.pending.push({ stationId: r.stationId, serial: r.serial, time: r.time, pass: isPass(r.result) });
  }

  /**
   * Evaluates the records offered since the last poll, in time order, and decides the units settled
   * by `now`. Records of stations outside the topology are dropped.
   */
  async update(topology: Pick<Topology, 'stations' | 'lines'>, now: number): Promise<void> {
    const { yielder } = this.opts;
    const byId = new Map(topology.stations.map((s) => [s.id, s]));
    await this.label(topology);
    // Records offered while this poll yields wait for the next one.
    const offered = this.pending;
    this.pending = [];
    const records = await sortInSlices(offered, byTime, { yielder, size: RECORDS_PER_SLICE });
    const settled = now - this.opts.cusum.settleMs;
    const left = await resultsLeft(records, yielder);
    let evaluated = 0;
    await yielder.forEachSlice(records, RECORDS_PER_SLICE, (slice) => {
      for (const r of slice) {
        const node = byId.get(r.stationId);
        if (node) this.evaluate(r, node);
        take(left, r.serial);
        // Deciding settled units as it goes keeps the units in flight few (the poll's memory peak).
        if (++evaluated % SETTLE_EVERY === 0) this.settleFronts(settled, left);
      }
    });
    const subjects = [...this.stations.values(), ...this.lines.values()];
    await yielder.forEachSlice(subjects, SUBJECTS_PER_SLICE, (slice) => {
      for (const s of slice) this.settle(s, settled);
    });
  }

  /** Event counters of every labelled line and station, and the statistics when configured. */
  families(): Family[] {
    const { stationKinds, lineKinds, statistic } = this.opts.cusum;
    const rows = (subjects: Iterable<Subject>, kinds: readonly CusumKind[]) => {
      const events: Sample[] = [];
      const ratios: Sample[] = [];
      for (const s of subjects) {
        if (!s.labels) continue;
        for (const kind of kinds) {
          const c = s.chart(kind);
          const labels = s.labels.with('kind', kind);
          events.push({ labels, value: c.events });
          if (c.ratio !== undefined) ratios.push({ labels, value: c.ratio });
        }
      }
      return { events, ratios };
    };
    const st = rows(this.stations.values(), stationKinds);
    const ln = rows(this.lines.values(), lineKinds);
    const createdMs = this.opts.countFrom;
    return [
      { desc: UNIT_CUSUM_FAMILIES.stationEvents, samples: st.events, createdMs },
      ...(statistic ? [{ desc: UNIT_CUSUM_FAMILIES.stationRatio, samples: st.ratios }] : []),
      { desc: UNIT_CUSUM_FAMILIES.lineEvents, samples: ln.events, createdMs },
      ...(statistic ? [{ desc: UNIT_CUSUM_FAMILIES.lineRatio, samples: ln.ratios }] : []),
    ];
  }

  private async label(topology: Pick<Topology, 'stations' | 'lines'>): Promise<void> {
    prune(this.stations, new Set(topology.stations.map((s) => s.id)));
    prune(this.lines, new Set(topology.lines.map((l) => l.id)));
    for (const node of topology.stations) {
      const s = this.subject(this.stations, node.id);
      s.labels = node.labels;
      await this.design(s, this.targetsOf(node));
    }
    for (const line of this.opts.lineCharts === 'on' ? topology.lines : []) {
      const l = this.subject(this.lines, line.id);
      l.labels = line.labels;
      await this.design(l, this.targetsOf(line));
    }
  }

  private targetsOf(e: Entity | StationNode): Targets {
    if (!e.site || !e.line) return this.opts.targets.default;
    const station = e.level === 'station' ? { id: e.id, name: (e as StationNode).name } : undefined;
    return targetsOf(this.opts.targets, { site: e.site, line: e.line, station });
  }

  private async design(s: Subject, t: Targets): Promise<void> {
    const targets: Record<CusumKind, number> = {
      first_pass_yield: 1 - t.firstPassYield,
      final_yield: 1 - t.finalYield,
      retry_ratio: t.retryRate,
    };
    for (const kind of UNIT_CUSUM_KINDS) {
      const p = Math.max(MIN_P, targets[kind]);
      // A chart with no history judges against its target: that design gets a slice of its own.
      if (p < MAX_P && !this.designs.has(this.keyOf(kind, onLogitGrid(p)))) {
        await this.opts.yielder.yieldToLoop();
        this.designOf(kind, p);
      }
      s.chart(kind).use(p < MAX_P ? p : undefined);
    }
  }

  private keyOf(kind: CusumKind, p0: number): string {
    return `${kind}/${p0}`;
  }

  /** On the log-odds grid, so that levels a few per cent apart share a memoised design (a Markov chain). */
  private designOf(kind: CusumKind, p0: number): BernoulliDesign | undefined {
    const p = onLogitGrid(Math.min(MAX_P, Math.max(MIN_P, p0)));
    if (!(p < MAX_P)) return undefined;
    const key = this.keyOf(kind, p);
    return getOrCreate(this.designs, key, () => {
      const shift = shiftByOddsRatio(p, this.ratioOf(kind));
      return designBernoulliCusum({ p0: p, p1: Math.min(MAX_P, shift.p1) }, this.opts.cusum.arl0);
    });
  }

  private ratioOf(kind: CusumKind): number {
    const r = this.opts.cusum.oddsRatios;
    return { first_pass_yield: r.firstPassYield, final_yield: r.finalYield, retry_ratio: r.retryRate }[kind];
  }

  private modelOf(kind: CusumKind): OwnLevelModel {
    const { baseline } = this.opts.cusum;
    return {
      baseline: {
        binMs: HOUR,
        bins: Math.max(1, Math.round(baseline.windowMs / HOUR)),
        lagBins: Math.round(baseline.lagMs / HOUR),
      },
      prior: baseline.prior,
      designOf: (p0) => this.designOf(kind, p0),
    };
  }

  private subject(map: Map<string, Subject>, id: string): Subject {
    return getOrCreate(map, id, () => new Subject((kind) => this.modelOf(kind)));
  }

  private evaluate(r: Result, node: StationNode): void {
    const counted = r.time >= this.opts.countFrom;
    const pass = r.pass;
    const station = this.subject(this.stations, node.id);
    const retest = station.flights.has(r.serial);
    station.chart('retry_ratio').count({ bad: retest, counted, time: r.time });
    this.fly(station, r, { pass, stationId: node.id });
    if (this.opts.lineCharts === 'off') return;
    const line = this.subject(this.lines, node.line.id);
    line.chart('retry_ratio').count({ bad: retest, counted, time: r.time });
    this.fly(line, r, { pass, stationId: node.id });
  }

  /** Records a result of a unit in flight: its first result decides first pass, its latest final. */
  private fly(s: Subject, r: Result, at: { pass: boolean; stationId: string }): void {
    let f = s.flights.get(r.serial);
    if (!f) {
      f = { lastTime: r.time, firstBad: false, seen: new Set(), failing: new Set() };
      s.flights.set(r.serial, f);
    }
    if (!f.seen.has(at.stationId)) {
      f.seen.add(at.stationId);
      if (!at.pass) f.firstBad = true;
    }
    if (at.pass) f.failing.delete(at.stationId);
    else f.failing.add(at.stationId);
    f.lastTime = Math.max(f.lastTime, r.time);
  }

  /**
   * Decides the front units of each flight list that {@link settle} would decide at the poll's end,
   * stopping at the first still open, so every chart takes its trials in the same order.
   */
  private settleFronts(before: number, left: ReadonlyMap<string, number>): void {
    const front = (s: Subject) => {
      for (const [serial, f] of s.flights) {
        if (f.lastTime > before || left.has(serial)) return;
        this.decide(s, f);
        s.flights.delete(serial);
      }
    };
    for (const s of this.stations.values()) front(s);
    for (const l of this.lines.values()) front(l);
  }

  private decide(s: Subject, f: Flight): void {
    const counted = f.lastTime >= this.opts.countFrom;
    s.chart('first_pass_yield').count({ bad: f.firstBad, counted, time: f.lastTime });
    s.chart('final_yield').count({ bad: f.failing.size > 0, counted, time: f.lastTime });
  }

  /** Decides the units with no output for `settle`. */
  private settle(s: Subject, before: number): void {
    for (const [serial, f] of s.flights) {
      if (f.lastTime > before) continue;
      this.decide(s, f);
      s.flights.delete(serial);
    }
  }
}
