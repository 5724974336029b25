import { verifyJwt } from './jwt-issuer.ts';
import { ApiError } from './params.ts';
import type { SimState } from './state.ts';
import type { TokenScope } from './types.ts';

/** What the caller's token may read. */
export interface Access {
  siteIds: Set<string>;
  forbidden: Set<string>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** A static token's scope, else a valid JWT's; the token itself never appears in an error. */
function scopeOf(state: SimState, token: string): TokenScope {
  if (state.scenario.refuseTokens) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid or expired bearer token');
  const fixed = Object.hasOwn(state.tokens, token) ? state.tokens[token] : undefined;
  if (fixed) return fixed;
  if (state.jwtSecret !== undefined) {
    const check = verifyJwt(token, state.jwtSecret, state.now());
    if (check.ok) return check.scope;
    if (check.problem === 'expired') throw new ApiError(401, 'UNAUTHORIZED', 'Bearer token has expired');
  }
  throw new ApiError(401, 'UNAUTHORIZED', 'Invalid or expired bearer token');
}

/** Resolves the bearer token. */
export function authenticate(state: SimState, authorization: string | undefined): Access {
  const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!token) throw new ApiError(401, 'UNAUTHORIZED', 'Missing bearer token');
  const scope = scopeOf(state, token);
  const all = state.source.sites.map((s) => s.id);
  const siteIds = new Set(scope.sites === 'all' ? all : scope.sites.map((id) => id.toLowerCase()));
  return { siteIds, forbidden: new Set(state.scenario.forbiddenStations) };
}

/** Station ids a request without `station_ids` covers: every station the token may read. */
export function accessibleStations(state: SimState, access: Access): string[] {
  return [...state.source.stations.values()]
    .filter((s) => access.siteIds.has(s.siteId) && !access.forbidden.has(s.id))
    .map((s) => s.id);
}

/** Checks requested station ids: unknown ones give 404, unreadable ones 403. */
export function checkStations(state: SimState, access: Access, ids: readonly string[]): string[] {
  const stations = ids.map((id) => state.source.stations.get(id));
  if (stations.some((s) => s === undefined)) throw new ApiError(404, 'NOT_FOUND', 'Station not found');
  for (const s of stations) {
    if (!access.siteIds.has(s!.siteId) || access.forbidden.has(s!.id)) {
      throw new ApiError(403, 'FORBIDDEN', 'Insufficient permissions for the requested station');
    }
  }
  return [...ids];
}
