/**
 * Content negotiation for /metrics: exposition format from `Accept`, gzip from
 * `Accept-Encoding`, both honouring q-values.
 */
import type { ExpositionFormat } from './render.ts';

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly order: number;
}

function parseList(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  header.split(',').forEach((item, order) => {
    const [rawType = '', ...rawParams] = item.split(';');
    const type = rawType.trim().toLowerCase();
    if (type === '') return;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      params.set(p.slice(0, eq).trim().toLowerCase(), value);
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    ranges.push({ type, params, q: Number.isFinite(q) ? q : 0, order });
  });
  // Highest q first; equal q keeps the client's order.
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order);
}

// OpenMetrics 0.0.1 and 1.0.0 share the syntax we emit; Prometheus asks for both.
const OPENMETRICS_VERSIONS = new Set(['1.0.0', '0.0.1']);

function formatFor(range: MediaRange): ExpositionFormat | undefined {
  const version = range.params.get('version');
  switch (range.type) {
    case 'application/openmetrics-text':
      return version === undefined || OPENMETRICS_VERSIONS.has(version) ? 'openmetrics' : undefined;
    case 'text/plain':
      return version === undefined || version === '0.0.4' ? 'text' : undefined;
    case 'application/vnd.google.protobuf':
      // Only the delimited MetricFamily stream; client_golang's text encodings are not served.
      return range.params.get('proto') === 'io.prometheus.client.MetricFamily' &&
        range.params.get('encoding') === 'delimited'
        ? 'protobuf'
        : undefined;
    case 'text/*':
    case '*/*':
      return 'text';
    default:
      return undefined;
  }
}

function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let star: number | undefined;
  for (const r of parseList(acceptEncoding)) {
    if (r.type === 'gzip' || r.type === 'x-gzip') return r.q > 0;
    if (r.type === '*' && star === undefined) star = r.q;
  }
  return star !== undefined && star > 0;
}

/**
 * Picks the exposition format and encoding for a scrape. OpenMetrics or protobuf only when the
 * client prefers it (Prometheus asks for protobuf first when its native histograms are on, and
 * for OpenMetrics otherwise); anything else, including a wildcard, no header or nothing
 * acceptable, gets the text format, which every scraper understands.
 */
export function negotiate(
  acceptHeader: string | undefined,
  acceptEncoding: string | undefined,
): { readonly format: ExpositionFormat; readonly gzip: boolean } {
  let format: ExpositionFormat = 'text';
  for (const range of parseList(acceptHeader ?? '')) {
    if (range.q <= 0) break;
    const f = formatFor(range);
    if (f) {
      format = f;
      break;
    }
  }
  return { format, gzip: acceptsGzip(acceptEncoding) };
}
