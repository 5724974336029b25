/**
 * Upstream traffic as the exporter itself counts it: deltas of its self-metrics
 * `station_exporter_upstream_requests_total` and `..._upstream_response_bytes_total`.
 */
import type { Registry } from '../../src/exposition/client.ts';

const REQUESTS = 'station_exporter_upstream_requests_total';
const BYTES = 'station_exporter_upstream_response_bytes_total';

/** Requests and response bytes per endpoint (`sites`, `station_summary`, `metrics`, `units`, ...). */
export type Traffic = ReadonlyMap<string, { readonly requests: number; readonly bytes: number }>;

/** Reads the counters now. Requests of every status class count: a failed request is still traffic. */
export async function readTraffic(registry: Registry): Promise<Traffic> {
  const out = new Map<string, { requests: number; bytes: number }>();
  const entry = (endpoint: string) => {
    let e = out.get(endpoint);
    if (!e) {
      e = { requests: 0, bytes: 0 };
      out.set(endpoint, e);
    }
    return e;
  };
  for (const metric of await registry.getMetricsAsJSON()) {
    if (metric.name !== REQUESTS && metric.name !== BYTES) continue;
    for (const v of metric.values) {
      const endpoint = String(v.labels['endpoint'] ?? '');
      if (metric.name === REQUESTS) entry(endpoint).requests += v.value;
      else entry(endpoint).bytes += v.value;
    }
  }
  return out;
}

/** `after - before`, per endpoint. */
export function trafficDelta(before: Traffic, after: Traffic): Traffic {
  const out = new Map<string, { requests: number; bytes: number }>();
  for (const [endpoint, a] of after) {
    const b = before.get(endpoint) ?? { requests: 0, bytes: 0 };
    out.set(endpoint, { requests: a.requests - b.requests, bytes: a.bytes - b.bytes });
  }
  return out;
}

/** Sum over the given endpoints (all when omitted). */
export function trafficTotal(t: Traffic, endpoints?: readonly string[]): { requests: number; bytes: number } {
  let requests = 0;
  let bytes = 0;
  for (const [endpoint, v] of t) {
    if (endpoints && !endpoints.includes(endpoint)) continue;
    requests += v.requests;
    bytes += v.bytes;
  }
  return { requests, bytes };
}
