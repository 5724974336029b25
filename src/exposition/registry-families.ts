/**
 * Converts a prom-client registry into the exposition model, so that self-metrics go
 * through the same renderer (and the same OpenMetrics rules) as the collectors' families.
 */
import type { Registry } from './client.ts';
import { type Family, LabelSet, type MetricKind, type Sample } from './model.ts';
import { formatValue } from './render.ts';

/** A prom-client value as returned at runtime (its typings omit `metricName`). */
interface JsonValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number | undefined>>;
  readonly metricName?: string;
}

const KINDS: ReadonlySet<string> = new Set<MetricKind>(['gauge', 'counter', 'histogram']);

const UNITS = ['seconds', 'bytes'];

function unitOf(name: string, kind: MetricKind): string | undefined {
  const base = kind === 'counter' ? name.replace(/_total$/, '') : name;
  return UNITS.find((u) => base.endsWith(`_${u}`));
}

function labelSetOf(labels: JsonValue['labels']): LabelSet {
  let set = LabelSet.EMPTY;
  let le: string | undefined;
  for (const [k, v] of Object.entries(labels)) {
    if (v === undefined) continue;
    const text = typeof v === 'number' ? formatValue(v) : v;
    // prom-client puts `le` first; by convention it goes last.
    if (k === 'le') le = text;
    else set = set.with(k, text);
  }
  return le === undefined ? set : set.with('le', le);
}

function sampleOf(v: JsonValue, baseName: string): Sample {
  const labels = labelSetOf(v.labels);
  const suffix =
    v.metricName?.startsWith(baseName) && v.metricName !== baseName
      ? v.metricName.slice(baseName.length)
      : undefined;
  return suffix === undefined ? { labels, value: v.value } : { labels, value: v.value, suffix };
}

/**
 * Reads a prom-client registry as {@link Family} values: gauges, counters (named with
 * `_total`) and histograms (`_bucket{le}`, `_sum`, `_count` samples). Summaries are not
 * part of the model and are left out; the exporter does not define any.
 */
export async function registryFamilies(registry: Registry): Promise<Family[]> {
  const metrics = await registry.getMetricsAsJSON();
  const families: Family[] = [];
  for (const m of metrics) {
    const kind = m.type as unknown as MetricKind;
    if (!KINDS.has(kind)) continue;
    const name = kind === 'counter' && !m.name.endsWith('_total') ? `${m.name}_total` : m.name;
    const samples = (m.values as readonly JsonValue[]).map((v) => sampleOf(v, m.name));
    const unit = unitOf(name, kind);
    const desc = unit ? { name, kind, help: m.help, unit } : { name, kind, help: m.help };
    families.push({ desc, samples });
  }
  return families;
}
