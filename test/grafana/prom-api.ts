/**
 * The two Prometheus HTTP API calls Grafana makes for these dashboards, with errors surfaced
 * (the shared helper's `query` maps an error to an empty result, which would hide a bad query).
 */

/** Outcome of an instant query: the series, or the error Prometheus gave. */
export interface QueryOutcome {
  readonly error?: string;
  readonly series: number;
}

interface ApiBody {
  status: 'success' | 'error';
  error?: string;
  data?: { result?: unknown[] } | string[];
}

async function get(url: string): Promise<ApiBody> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return (await res.json()) as ApiBody;
}

/** Runs `expr` as an instant query. */
export async function instantQuery(base: string, expr: string): Promise<QueryOutcome> {
  const body = await get(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  if (body.status !== 'success') return { error: body.error ?? 'unknown error', series: 0 };
  const data = body.data as { result?: unknown[] } | undefined;
  return { series: data?.result?.length ?? 0 };
}

/** What Grafana's `label_values(selector, label)` lists: the label's values on matching series. */
export async function labelValues(base: string, selector: string, label: string): Promise<string[]> {
  const body = await get(`${base}/api/v1/label/${label}/values?match[]=${encodeURIComponent(selector)}`);
  if (body.status !== 'success') throw new Error(`label_values(${selector}, ${label}): ${body.error}`);
  return [...((body.data as string[] | undefined) ?? [])].sort();
}
