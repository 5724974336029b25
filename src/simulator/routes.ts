import { type Access, accessibleStations, checkStations } from './access.ts';
import { ApiError, checkId, directionParam, listParam, stationIdsParam, windowParams } from './params.ts';
import type { Window } from './records.ts';
import { applyYieldDrops } from './scenarios.ts';
import type { SimState } from './state.ts';
import { summarize, summaryOfCounts } from './summarize.ts';
import type { MetricRecordWire, SiteWire, SummaryWire, UnitRecordWire } from './types.ts';

/** What a route handler sees of a request. */
export interface RouteInput {
  state: SimState;
  access: Access;
  params: URLSearchParams;
  nowMs: number;
  pathId?: string;
}

function capped<T>(state: SimState, records: T[]): T[] {
  const max = state.maxRecords;
  return max === undefined || records.length <= max ? records : records.slice(0, max);
}

/** The yield drops in force: the process scenario's and the run-time scenario's. */
function yieldDrops(state: SimState) {
  const drop = state.scenario.yieldDrop;
  return drop ? [...state.processDrops, drop] : state.processDrops;
}

/** Unit records as served: the source's, with the data scenarios applied. */
export function servedUnits(state: SimState, ids: readonly string[], window: Window): UnitRecordWire[] {
  return applyYieldDrops(state.source.units(ids, window), {
    sites: state.source.sites,
    drops: yieldDrops(state),
    seed: state.seed,
  });
}

// Called after every other parameter is parsed, so a request with several problems gets 400 first.
function stationsOf(input: RouteInput): string[] {
  const ids = stationIdsParam(input.params);
  return ids ? checkStations(input.state, input.access, ids) : accessibleStations(input.state, input.access);
}

/** GET /sites and GET /sites/{id}. */
export function sitesRoute(input: RouteInput): readonly SiteWire[] {
  const raw = input.pathId ?? input.params.get('id') ?? '';
  const sites = input.state.source.sites;
  if (raw === '') return sites.filter((s) => input.access.siteIds.has(s.id));
  const id = checkId(raw, 'site id');
  const site = sites.find((s) => s.id === id);
  if (!site) throw new ApiError(404, 'NOT_FOUND', 'Site not found');
  if (!input.access.siteIds.has(id))
    throw new ApiError(403, 'FORBIDDEN', 'Insufficient permissions for the site');
  return [site];
}

/** GET /metrics. */
export function metricsRoute(input: RouteInput): MetricRecordWire[] {
  const window = { ...windowParams(input.params, input.nowMs), nowMs: input.nowMs };
  const names = listParam(input.params, 'names');
  const ids = stationsOf(input);
  return capped(input.state, input.state.source.metrics(ids, window, names));
}

/** GET /units. */
export function unitsRoute(input: RouteInput): UnitRecordWire[] {
  const window = { ...windowParams(input.params, input.nowMs), nowMs: input.nowMs };
  const directions = directionParam(input.params);
  const types = listParam(input.params, 'type');
  const typeSet = types ? new Set(types) : null;
  const serial = input.params.get('serial_number') || undefined;
  const ids = stationsOf(input);
  const records = servedUnits(input.state, ids, window).filter(
    (r) =>
      directions.has(r.direction) &&
      (typeSet === null || (r.unit_type !== null && typeSet.has(r.unit_type))) &&
      (serial === undefined || r.unit_serial === serial),
  );
  return capped(input.state, records);
}

/** GET /station/summary. */
export function summaryRoute(input: RouteInput): SummaryWire {
  const requested = stationIdsParam(input.params);
  if (!requested) throw new ApiError(400, 'BAD_REQUEST', 'station_ids is required');
  const window = { ...windowParams(input.params, input.nowMs), nowMs: input.nowMs };
  const ids = checkStations(input.state, input.access, requested);
  const scale = input.state.yieldScale;
  // A recorded answer is the upstream's own; a data scenario changes the records, so it recomputes.
  if (yieldDrops(input.state).length > 0) return summarize(servedUnits(input.state, ids, window), scale);
  const { source } = input.state;
  const recorded = source.recordedSummary?.(ids, window);
  if (recorded) return recorded;
  const counts = source.unitCounts?.(ids, window);
  return counts ? summaryOfCounts(counts, scale) : summarize(servedUnits(input.state, ids, window), scale);
}
