/**
 * The upstream's operations, listed once: each endpoint's path and how its query is encoded.
 * The client sends requests from this list, and callers that must decide on a URL's length
 * before sending ask the client, so there is one encoding of every query.
 */

/** A time window and station selection shared by the data operations. */
export interface WindowQuery {
  readonly stationIds?: readonly string[];
  readonly from?: Date;
  readonly to?: Date;
  readonly signal?: AbortSignal;
}

export interface MetricsQuery extends WindowQuery {
  readonly names?: readonly string[];
}

export interface UnitsQuery extends WindowQuery {
  readonly types?: readonly string[];
  readonly serialNumber?: string;
  readonly directions?: ReadonlyArray<'input' | 'output'>;
}

/** Query parameters in order; array values become repeated keys. */
export type QueryParams = ReadonlyArray<readonly [string, string]>;

/** Encodes the parameters common to the data operations. */
function windowParams(q: WindowQuery): Array<[string, string]> {
  const params: Array<[string, string]> = [];
  if (q.stationIds && q.stationIds.length > 0) params.push(['station_ids', q.stationIds.join(',')]);
  if (q.from) params.push(['from', q.from.toISOString()]);
  if (q.to) params.push(['to', q.to.toISOString()]);
  return params;
}

/** One endpoint: its path and its query encoding. */
interface EndpointSpec<Q> {
  readonly path: (q: Q) => string;
  readonly params: (q: Q) => QueryParams;
}

const none = (): QueryParams => [];

/** Every operation of the Station Data Query Service the exporter uses, by endpoint label. */
export const ENDPOINTS = {
  sites: { path: () => '/sites', params: none } satisfies EndpointSpec<void>,
  site: { path: (id: string) => `/sites/${id}`, params: none } satisfies EndpointSpec<string>,
  station_summary: {
    path: () => '/station/summary',
    params: windowParams,
  } satisfies EndpointSpec<WindowQuery>,
  metrics: {
    path: () => '/metrics',
    params: (q: MetricsQuery) => [
      ...windowParams(q),
      ...(q.names ?? []).map((n): [string, string] => ['names', n]),
    ],
  } satisfies EndpointSpec<MetricsQuery>,
  units: {
    path: () => '/units',
    params: (q: UnitsQuery) => {
      const params = windowParams(q);
      for (const t of q.types ?? []) params.push(['type', t]);
      if (q.serialNumber !== undefined) params.push(['serial_number', q.serialNumber]);
      for (const d of q.directions ?? []) params.push(['direction', d]);
      return params;
    },
  } satisfies EndpointSpec<UnitsQuery>,
} as const;

/** Endpoint names, used as metric label values and in messages. */
export type Endpoint = keyof typeof ENDPOINTS;

/** Every endpoint name, so that request counters can start at 0 for each. */
export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as Endpoint[];

/** The query type of the endpoints that take a window query. */
export type QueryOf<E extends 'station_summary' | 'metrics' | 'units'> = Parameters<
  (typeof ENDPOINTS)[E]['params']
>[0];

/** Builds a URL. Station id lists keep literal commas (ids are hex, so nothing else needs care). */
export function buildUrl(baseUrl: string, path: string, params: QueryParams): string {
  const query = params.map(([k, v]) => `${k}=${k === 'station_ids' ? v : encodeURIComponent(v)}`).join('&');
  return `${baseUrl.replace(/\/+$/, '')}${path}${query ? `?${query}` : ''}`;
}

/** The URL of a window-query request, from the one encoding the client sends. */
export function requestUrl<E extends 'station_summary' | 'metrics' | 'units'>(
  baseUrl: string,
  endpoint: E,
  query: QueryOf<E>,
): string {
  // Each endpoint's params take its own query type; the generic ties them together.
  const spec = ENDPOINTS[endpoint] as unknown as {
    path: () => string;
    params: (q: QueryOf<E>) => QueryParams;
  };
  return buildUrl(baseUrl, spec.path(), spec.params(query));
}
