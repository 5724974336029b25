import { ApiError } from './params.ts';
import type { SimState } from './state.ts';

/** What the caller's token may read. */
export interface Access {
  siteIds: Set<string>;
  forbidden: Set<string>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Resolves the bearer token; the token itself never appears in an error. */
export function authenticate(state: SimState, authorization: string | undefined): Access {
  const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!token) throw new ApiError(401, 'UNAUTHORIZED', 'Missing bearer token');
  const scope = Object.hasOwn(state.tokens, token) ? state.tokens[token] : undefined;
  if (!scope) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid or expired bearer token');
  const all = state.model.plant.sites.map((s) => s.id);
  const siteIds = new Set(scope.sites === 'all' ? all : scope.sites.map((id) => id.toLowerCase()));
  return { siteIds, forbidden: new Set(state.scenario.forbiddenStations) };
}

/** Station ids a request without `station_ids` covers: every station the token may read. */
export function accessibleStations(state: SimState, access: Access): string[] {
  return state.model.plant.stations
    .filter((s) => access.siteIds.has(s.siteId) && !access.forbidden.has(s.id))
    .map((s) => s.id);
}

/** Checks requested station ids: unknown ones give 404, unreadable ones 403. */
export function checkStations(state: SimState, access: Access, ids: readonly string[]): string[] {
  const stations = ids.map((id) => state.model.stationsById.get(id));
  if (stations.some((s) => s === undefined)) throw new ApiError(404, 'NOT_FOUND', 'Station not found');
  for (const s of stations) {
    if (!access.siteIds.has(s!.siteId) || access.forbidden.has(s!.id)) {
      throw new ApiError(403, 'FORBIDDEN', 'Insufficient permissions for the requested station');
    }
  }
  return [...ids];
}
