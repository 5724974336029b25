import { formatDuration } from './duration.ts';
import type { Config, WindowSpec } from './schema.ts';

/** A short summary of `config` for `check-config`: where the token comes from, never the token. */
export function describeConfig(config: Config): string {
  const { upstream, discovery, summary, measurements, units } = config;
  const token = upstream.token.kind === 'file' ? `token from file ${upstream.token.path}` : 'inline token';
  const lines = [
    `upstream: ${displayUrl(upstream.baseUrl)} (${token}; timeout ${formatDuration(upstream.timeoutMs)}, ` +
      `${upstream.concurrency} concurrent, at most ${upstream.maxRequestsPerSecond} requests/s)`,
    `discovery: ${describeScope(config)}; refresh every ${formatDuration(discovery.refreshIntervalMs)}`,
    `windows: ${config.windows.map(describeWindow).join(', ')}`,
    `summary: ${
      summary.enabled
        ? `every ${formatDuration(summary.intervalMs)}, levels ${summary.levels.join(', ')}, upstream yields as ${summary.yieldScale}`
        : 'disabled'
    }`,
    `measurements: ${
      measurements.enabled
        ? `every ${formatDuration(measurements.intervalMs)}, ${measurements.names.map((n) => n.name).join(', ')} ` +
          `(min ${measurements.minSamples} samples, overlap ${formatDuration(measurements.overlapMs)}); ` +
          describeHistograms(measurements)
        : 'disabled'
    }`,
    `units: ${units.enabled ? `every ${formatDuration(units.intervalMs)} (overlap ${formatDuration(units.overlapMs)})` : 'disabled'}`,
    ...describeProducts(config),
    `listen: ${config.server.listenAddress}`,
    `log level: ${config.log.level}`,
  ];
  return lines.join('\n');
}

/** The products line, when products are configured (none otherwise). */
function describeProducts({ products, measurements }: Config): string[] {
  if (products.allow.length === 0) return [];
  const charted = measurements.control.names.filter((n) => n.byProduct).map((n) => unanchored(n.pattern));
  const uses = [
    ...(products.label ? ['unit_type label on the unit counts'] : []),
    ...(charted.length > 0 ? [`charts per product for ${charted.join(', ')}`] : []),
  ];
  return [
    `products: ${products.allow.join(', ')} (any other type as "other", none as "unknown")` +
      (uses.length > 0 ? `; ${uses.join('; ')}` : ''),
  ];
}

/** The upstream URL for display (check-config, landing page): no credentials, query or fragment. */
export function displayUrl(baseUrl: string): string {
  // The schema rejects credentials in the URL; stripping them again keeps this safe on its own.
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

function describeScope(config: Config): string {
  const { siteIds, stationIds, include, exclude } = config.discovery;
  const parts = [siteIds.length === 0 ? 'all accessible sites' : `${siteIds.length} site(s)`];
  if (stationIds.length > 0) parts.push(`${stationIds.length} station(s)`);
  for (const [verb, filter] of Object.entries({ include, exclude })) {
    for (const level of ['sites', 'lines', 'stations'] as const) {
      const patterns = filter[level];
      if (patterns.length > 0) parts.push(`${verb} ${level} ${patterns.map(unanchored).join(' ')}`);
    }
  }
  return parts.join(', ');
}

/** The pattern as written in the config, without the anchors the schema added. */
function unanchored(pattern: RegExp): string {
  return pattern.source.replace(/^\^\(\?:/, '').replace(/\)\$$/, '');
}

function describeWindow(spec: WindowSpec): string {
  switch (spec.kind) {
    case 'rolling':
      return `${spec.name} (last ${formatDuration(spec.durationMs)})`;
    case 'today':
      return `${spec.name} (today in ${spec.timezone})`;
    case 'week':
      return `${spec.name} (week starting ${spec.weekStarts.replace(/^./, (c) => c.toUpperCase())} in ${spec.timezone})`;
    case 'shift':
      return `${spec.name} (shifts starting ${spec.shiftStarts.join(', ')} in ${spec.timezone})`;
  }
}

/** Which names get a native histogram, at what resolution. */
function describeHistograms(m: Config['measurements']): string {
  const h = m.histograms;
  const names = h.enabled ? m.names.slice(0, h.maxNames).map((n) => n.name) : [];
  if (names.length === 0) return 'no value histograms';
  return `value histograms for ${names.join(', ')} (schema ${h.schema}, at most ${h.maxBuckets} buckets)`;
}
