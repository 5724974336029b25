import { getOrCreate } from '../util/maps.ts';
import { type UnitInfo, unitAt, unitIndexRange, type Visit, walkUnit } from './flow.ts';
import { measuredValue, type ValueContext } from './measurements.ts';
import type { LineModel, PlantModel, StationModel } from './plant.ts';
import { silentAt } from './process-events.ts';
import { Purpose, uniform } from './random.ts';
import { type SummaryCounts, UnitTally, zeroCounts } from './summarize.ts';
import type { MetricRecordWire, TimedUnitRecord, UnitRecordWire } from './types.ts';
import type { UnitTallyMemo, UnitWalks, VisitMemo } from './unit-walks.ts';

/** A time window [fromMs, toMs) seen at clock value nowMs: nothing after nowMs exists yet. */
export interface Window {
  fromMs: number;
  toMs: number;
  nowMs: number;
}

/** Records with their times, in two parallel arrays. */
export interface Timed<T> {
  times: number[];
  recs: T[];
}

interface Emit {
  unit: UnitInfo;
  visit: Visit;
  line: LineModel;
  memo?: VisitMemo;
}

// Some uploaders stamp when the record reached the database; such a record is invisible until then.
function insertedAt(
  seed: number,
  station: StationModel,
  at: { readonly t: number; readonly salt: number },
): number | null {
  const { t, salt } = at;
  if (!station.insertLag) return null;
  return t + 200 + Math.floor(4800 * uniform(seed, Purpose.inserted, station.hash, t, salt));
}

function visible(w: Window, t: number, inserted: number | null): boolean {
  return t >= w.fromMs && t < w.toMs && t <= w.nowMs && (inserted === null || inserted <= w.nowMs);
}

function linesOf(model: PlantModel, stationIds: readonly string[]): Map<LineModel, Set<string>> {
  const byLine = new Map<LineModel, Set<string>>();
  for (const id of stationIds) {
    const st = model.stationsById.get(id);
    if (st) getOrCreate(byLine, st.line, () => new Set<string>()).add(id);
  }
  // Plant order, not request order, so the same station set always lists ties the same way.
  return new Map(model.lines.filter((l) => byLine.has(l)).map((l) => [l, byLine.get(l)!]));
}

/** The plant a record function reads and the seed of its randomness. */
export interface PlantSource {
  readonly seed: number;
  readonly model: PlantModel;
  /** A memo of the units' walks (unit-walks.ts); without it each window walks its units anew. */
  readonly walks?: UnitWalks;
}

function walkWindow(
  plant: PlantSource,
  query: { readonly ids: readonly string[]; readonly w: Window },
  emit: (e: Emit) => void,
) {
  const { ids, w } = query;
  const until = Math.min(w.toMs, w.nowMs + 1);
  for (const [line, wanted] of linesOf(plant.model, ids)) {
    const [first, last] = unitIndexRange(line, w.fromMs, until);
    for (let k = first; k <= last; k++) eachWantedVisit(plant, line, { k, untilMs: until, wanted }, emit);
  }
}

// Sorting an index array by a parallel array of times is much cheaper than sorting wrapper objects;
// ties keep generation order, which is itself deterministic.
function sorted<T>(items: Timed<T>): T[] {
  const order = Array.from({ length: items.recs.length }, (_, i) => i);
  const times = items.times;
  order.sort((a, b) => times[a]! - times[b]! || a - b);
  return order.map((i) => items.recs[i]!);
}

export const timed = <T>(): Timed<T> => ({ times: [], recs: [] });

function slotOf(seed: number, e: Emit): string | null {
  const { station: st, step, attempt } = e.visit;
  if (st.slots === 0) return null;
  return String(
    1 + Math.floor(st.slots * uniform(seed, Purpose.slot, e.line.hash, e.unit.index, step, attempt)),
  );
}

function modeOf(e: Emit): string | null {
  if (!e.visit.station.reportsMode) return null;
  return e.unit.engineering ? 'engineering' : 'production';
}

function tagsOf(e: Emit): string[] {
  const tags = e.visit.station.tags.slice();
  if (e.visit.attempt > 0) tags.push('retest');
  return tags;
}

/** The input and the output record of a visit, visible or not. */
function unitRecordsOf(seed: number, e: Emit): TimedUnitRecord[] {
  const st = e.visit.station;
  const slot = slotOf(seed, e);
  const mode = modeOf(e);
  const build = (t: number, direction: 'input' | 'output', result: string | null): TimedUnitRecord => {
    const inserted = insertedAt(seed, st, { t, salt: direction === 'input' ? 0 : 1 });
    // Plain literals in contract field order: object spread is several times slower here.
    const rec: UnitRecordWire = {
      station_id: st.id,
      slot,
      unit_serial: e.unit.serial,
      time_created: new Date(t).toISOString(),
      tz: st.tz,
      mode,
      tags: tagsOf(e),
      unit_type: e.unit.unitType,
      direction,
      result,
      metadata: null,
    };
    if (inserted !== null) rec.time_inserted = new Date(inserted).toISOString();
    return { t, inserted, rec };
  };
  return [build(e.visit.inMs, 'input', null), build(e.visit.outMs, 'output', e.visit.result)];
}

/** The visit's unit records: from its memo when there is one (built once for every window). */
function visitRecords(seed: number, e: Emit): readonly TimedUnitRecord[] {
  if (e.memo === undefined) return unitRecordsOf(seed, e);
  e.memo.unitRecords ??= unitRecordsOf(seed, e);
  return e.memo.unitRecords;
}

/** Unit records (both directions) of the given stations in the window, sorted by time_created. */
export function unitRecords(plant: PlantSource, ids: readonly string[], w: Window): UnitRecordWire[] {
  const { seed } = plant;
  const out = timed<UnitRecordWire>();
  walkWindow(plant, { ids, w }, (e) => {
    // Both records before the window: nothing to build (the output is the later one).
    if (e.visit.outMs < w.fromMs) return;
    for (const r of visitRecords(seed, e)) {
      if (!visible(w, r.t, r.inserted)) continue;
      out.times.push(r.t);
      out.recs.push(r.rec);
    }
  });
  return sorted(out);
}

/**
 * The summary counts of what {@link unitRecords} returns, tallied unit by unit (no sort, no sets
 * of strings): the same counts while the lines asked have distinct serial prefixes, undefined
 * otherwise (the caller then summarizes the records). With the memo of walks, a unit whose records
 * the window sees in full adds its kept tally in one step; only units cut by the window's edges are
 * tallied record by record.
 */
export function unitCounts(plant: PlantSource, ids: readonly string[], w: Window): SummaryCounts | undefined {
  const byLine = linesOf(plant.model, ids);
  const lines = [...byLine.keys()];
  if (new Set(lines.map((l) => l.serialPrefix)).size !== lines.length) return undefined;
  const counts = zeroCounts();
  const tally = new UnitTally();
  const until = Math.min(w.toMs, w.nowMs + 1);
  for (const [line, wanted] of byLine) {
    const memo = plant.walks?.talliesOf(line, [...wanted].sort().join(','));
    const [first, last] = unitIndexRange(line, w.fromMs, until);
    for (let k = first; k <= last; k++) {
      const m = memo && getOrCreate(memo, k, () => unitTallyMemo(plant, line, { k, wanted }));
      if (m?.counts === null) continue;
      // Every record of the unit there is in the window and visible: its whole tally counts.
      if (m !== undefined && seesAll(w, m)) {
        addCounts(counts, m.counts);
        continue;
      }
      eachWantedVisit(plant, line, { k, untilMs: until, wanted }, (e) => {
        if (e.visit.outMs < w.fromMs) return;
        for (const r of visitRecords(plant.seed, e)) if (visible(w, r.t, r.inserted)) tally.add(r.rec);
      });
      tally.flushInto(counts);
    }
  }
  return counts;
}

function seesAll(w: Window, m: UnitTallyMemo): m is UnitTallyMemo & { counts: SummaryCounts } {
  return (
    m.counts !== null &&
    m.firstMs >= w.fromMs &&
    m.lastMs < w.toMs &&
    m.lastMs <= w.nowMs &&
    m.visibleMs <= w.nowMs
  );
}

function addCounts(into: SummaryCounts, c: SummaryCounts): void {
  for (const key of Object.keys(c) as (keyof SummaryCounts)[]) into[key] += c[key];
}

/**
 * The visits of unit `k` at the `wanted` stations that start before `untilMs`, as walkUnit gives
 * them, or from the memo of walks when there is one.
 */
function eachWantedVisit(
  plant: PlantSource,
  line: LineModel,
  walk: { readonly k: number; readonly untilMs: number; readonly wanted: ReadonlySet<string> },
  emit: (e: Emit) => void,
): void {
  const { seed, walks } = plant;
  const { k, untilMs, wanted } = walk;
  const onVisit = (unit: UnitInfo, visit: Visit, memo?: VisitMemo) => {
    // A silent station's unit passes on down the line, unrecorded.
    if (wanted.has(visit.station.id) && !silentAt(visit.station.stationEvents, visit.inMs))
      emit({ unit, visit, line, memo });
  };
  if (walks === undefined) {
    const unit = unitAt(seed, line, k);
    if (unit) walkUnit(seed, line, { k, untilMs, onVisit: (v) => onVisit(unit, v) });
    return;
  }
  const { unit, visits, memos } = walks.of(line, k);
  if (unit === null) return;
  for (let i = 0; i < visits.length && visits[i]!.inMs < untilMs; i++) onVisit(unit, visits[i]!, memos[i]);
}

/** The whole tally of unit `k` at the `wanted` stations, and the span of its records there. */
function unitTallyMemo(
  plant: PlantSource,
  line: LineModel,
  at: { readonly k: number; readonly wanted: ReadonlySet<string> },
): UnitTallyMemo {
  const tally = new UnitTally();
  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = Number.NEGATIVE_INFINITY;
  let visibleMs = Number.NEGATIVE_INFINITY;
  eachWantedVisit(plant, line, { k: at.k, untilMs: Number.POSITIVE_INFINITY, wanted: at.wanted }, (e) => {
    for (const r of visitRecords(plant.seed, e)) {
      tally.add(r.rec);
      firstMs = Math.min(firstMs, r.t);
      lastMs = Math.max(lastMs, r.t);
      visibleMs = Math.max(visibleMs, r.inserted ?? r.t);
    }
  });
  if (!Number.isFinite(firstMs)) return { counts: null, firstMs, lastMs, visibleMs };
  const counts = zeroCounts();
  tally.flushInto(counts);
  return { counts, firstMs, lastMs, visibleMs };
}

/** Measurement records of the given stations in the window (optionally only `names`), sorted by time_created. */
export function metricRecords(
  plant: PlantSource,
  ids: readonly string[],
  query: { readonly w: Window; readonly names?: readonly string[] | undefined },
): MetricRecordWire[] {
  const { seed } = plant;
  const { w, names } = query;
  const wantedNames = names && names.length > 0 ? new Set(names) : null;
  const out = timed<MetricRecordWire>();
  walkWindow(plant, { ids, w }, (e) => {
    const t = e.visit.outMs;
    const inserted = insertedAt(seed, e.visit.station, { t, salt: 1 });
    if (visible(w, t, inserted)) visitMetrics(seed, e, { inserted, wantedNames, out });
  });
  return sorted(out);
}

/** Appends the measurement records of one visible visit, one per wanted measured name. */
function visitMetrics(
  seed: number,
  e: Emit,
  into: {
    readonly inserted: number | null;
    readonly wantedNames: ReadonlySet<string> | null;
    readonly out: Timed<MetricRecordWire>;
  },
): void {
  const { visit, unit } = e;
  const { inserted, wantedNames, out } = into;
  const st = visit.station;
  const t = visit.outMs;
  const slot = slotOf(seed, e);
  const mode = modeOf(e);
  const time_created = new Date(t).toISOString();
  const time_inserted = inserted === null ? undefined : new Date(inserted).toISOString();
  const failing = visit.result === 'pass' || st.explainers.length === 0 ? -1 : pickExplainer(seed, e);
  const ctx = valueContext(seed, e, slot);
  for (let i = 0; i < st.measures.length; i++) {
    const spec = st.measures[i]!;
    if (wantedNames && !wantedNames.has(spec.name)) continue;
    ctx.failing = i === failing;
    const rec: MetricRecordWire = {
      station_id: st.id,
      slot,
      unit_serial: unit.serial,
      time_created,
      tz: st.tz,
      mode,
      tags: tagsOf(e),
      name: spec.name,
      value: measuredValue(spec, ctx),
      unit: spec.unit,
      type: spec.type,
      limit_upper: spec.limitUpper,
      limit_lower: spec.limitLower,
    };
    if (time_inserted !== undefined) rec.time_inserted = time_inserted;
    out.times.push(t);
    out.recs.push(rec);
  }
}

/** What the values of a visit depend on (the failing measurement is set per value). */
function valueContext(seed: number, e: Emit, slot: string | null): ValueContext {
  const { visit, line, unit } = e;
  const ctx: ValueContext = {
    seed,
    stationHash: visit.station.hash,
    visit: [line.hash, unit.index, visit.step, visit.attempt],
    timeMs: visit.outMs,
    cycleMs: visit.outMs - visit.inMs,
    failing: false,
    events: visit.station.events,
  };
  if (line.realistic !== undefined) {
    ctx.slot = slot === null ? 0 : Number(slot);
    ctx.productHash = unit.productHash ?? 0;
  }
  return ctx;
}

function pickExplainer(seed: number, e: Emit): number {
  const ex = e.visit.station.explainers;
  const u = uniform(seed, Purpose.failPick, e.line.hash, e.unit.index, e.visit.step, e.visit.attempt);
  return ex[Math.floor(u * ex.length)]!;
}
