/** The `measurements` and `units` sections of the config: record collectors and their statistics. */
import { z } from 'zod';
import { controlSchema } from './control-schema.ts';
import {
  always,
  camelKeys,
  duration,
  interval,
  isRecord,
  maxStaleness,
  period,
  reportDuplicates,
} from './fields.ts';
import { unitsCusumSchema } from './units-cusum-schema.ts';

const minSamples = z.int().min(2);

/** How a name's process capability is computed: docs/capability.md. */
const CAPABILITY_METHODS = ['normal', 'percentile', 'box-cox'] as const;
/** One capability method. */
export type CapabilityMethod = (typeof CAPABILITY_METHODS)[number];

const capabilityMethod = z.enum(CAPABILITY_METHODS);

function rereadInterval() {
  return period()
    .prefault('1h')
    .describe(
      'How long one re-read sweep of the whole longest window takes, spread over the polls, so that records ' +
        'arriving later than `overlap` are still picked up (and counted as late).',
    );
}

function attributeValues(defaults: string[]) {
  return z
    .array(z.string().min(1, 'must not be empty'))
    .default(defaults)
    .describe(`Values counted as this outcome; default ${defaults.map((d) => `\`${d}\``).join(', ')}.`);
}

const measurementName = z
  .union([
    z.string().min(1, 'must not be empty'),
    z.strictObject({
      name: z.string().min(1, 'must not be empty').describe('Measurement name.'),
      min_samples: minSamples
        .optional()
        .describe('Overrides `measurements.min_samples` for this measurement.'),
      capability_method: capabilityMethod
        .optional()
        .describe('Overrides `measurements.capability_method` for this measurement.'),
    }),
  ])
  .meta({ 'x-type': 'string or mapping' });

/** Windowed measurement statistics that can be selected per window (see collectors/measurements/selection.ts). */
export const WINDOW_STATISTICS = [
  'samples',
  'non_numeric',
  'mean',
  'min',
  'max',
  'stddev',
  'out_of_spec',
  'ppk',
  'cpk',
  'pp',
  'cp',
  'attributes',
  'capability_omitted',
  'normality',
] as const;
/** One windowed measurement statistic. */
export type WindowStatistic = (typeof WINDOW_STATISTICS)[number];

/** The statistics exported by default: what the dashboards and alerts use; min/max are opt-in. */
const DEFAULT_WINDOW_STATISTICS: readonly WindowStatistic[] = [
  'samples',
  'mean',
  'stddev',
  'out_of_spec',
  'ppk',
  'attributes',
];

const statisticList = z
  .array(z.enum(WINDOW_STATISTICS))
  .superRefine((list, ctx) => reportDuplicates(list, ctx, { key: (x) => x, what: 'statistic' }), always);

const statisticsSchema = z
  .strictObject({
    default: statisticList
      .default([...DEFAULT_WINDOW_STATISTICS])
      .describe(
        `Windowed statistics exported for every window: any of ${WINDOW_STATISTICS.map((x) => `\`${x}\``).join(', ')}.`,
      ),
    windows: z
      .record(z.string(), statisticList)
      .default({})
      .describe(
        'Per window name, the statistics to export instead of `default` (an empty list exports none).',
      ),
  })
  .prefault({})
  .transform((s) => ({ default: s.default, windows: new Map(Object.entries(s.windows)) }))
  .describe('Which windowed measurement statistics to export, per window: the series budget.');

const histogramsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Export `station_measurement_value`, a native histogram of every numeric value per station, name and slot ' +
          '(cumulative since the exporter started), in the protobuf format only: Prometheus 3 needs ' +
          '`scrape_native_histograms: true`, Prometheus 2 `--enable-feature=native-histograms` ' +
          '(docs/metrics.md#prometheus-versions).',
      ),
    schema: z
      .int()
      .min(-4)
      .max(8)
      .default(8)
      .describe(
        'Starting resolution: 2^schema buckets per doubling of the value (8: buckets 0.27 % wide, the finest). ' +
          'A series whose values would need more than `max_buckets` buckets halves its resolution until they fit.',
      ),
    max_buckets: z
      .int()
      .min(2)
      .max(10_000)
      .default(160)
      .describe('Most buckets one histogram series holds (positive and negative values together).'),
    max_names: z
      .int()
      .min(0)
      .default(10)
      .describe(
        'Histograms for the first this many names of `names` only: the bound on their series and buckets ' +
          '(each costs one series in a Prometheus with native histograms, and its buckets in the protobuf bytes).',
      ),
  })
  .prefault({})
  .transform(camelKeys)
  .describe('The native histogram of measurement values (docs/metrics.md#native-histograms).');

export const measurementsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Export process capability statistics of measurements.'),
    interval: interval('measurements'),
    max_staleness: maxStaleness(),
    names: z
      .array(measurementName)
      .default([])
      .superRefine(
        (names, ctx) =>
          reportDuplicates(names, ctx, {
            key: (n) => (typeof n === 'string' ? n : n?.name),
            what: 'measurement',
          }),
        always,
      )
      .describe(
        'Measurement names to export: a name, or `{ name, min_samples, capability_method }`. Required when enabled.',
      ),
    min_samples: minSamples.default(30).describe('Fewest samples in a window for which Ppk is exported.'),
    capability_method: capabilityMethod
      .default('normal')
      .describe(
        'How Ppk, Pp, Cpk and Cp are computed: `normal` (mean ± 3 s), `percentile` (ISO 22514-2, from the ' +
          '0.135 %, 50 % and 99.865 % points) or `box-cox` (the normal method on Box–Cox transformed values ' +
          'and limits); per name with `{ name, capability_method }`. See docs/capability.md.',
      ),
    overlap: duration()
      .prefault('5m')
      .describe('How far back each poll re-reads, to catch records that arrive late.'),
    max_records_per_request: z
      .int()
      .min(1)
      .default(20_000)
      .describe(
        'Answers with this many records are assumed truncated and re-requested as smaller time spans.',
      ),
    reread_interval: rereadInterval(),
    retention: duration()
      .prefault('24h')
      .describe(
        'How long a known station, measurement and slot stays exported (samples 0, no statistics) after ' +
          'its last record left every window, so that "no samples" alerts keep working.',
      ),
    attributes: z
      .strictObject({
        pass: attributeValues(['PASS', 'OK']),
        fail: attributeValues(['FAIL', 'NG', 'NOK']),
      })
      .prefault({})
      .describe(
        'Values of attribute (pass/fail) tests, matched case-insensitively against the whole value; ' +
          'counted in `station_measurement_window_attribute_samples` by outcome.',
      ),
    control: controlSchema,
    histograms: histogramsSchema,
    statistics: statisticsSchema,
    by_slot: z
      .boolean()
      .default(true)
      .describe(
        'Export a `slot` label per test slot. `false` leaves the label out where a station has a single slot ' +
          '(stations with several slots keep it, so that no two series collide).',
      ),
  })
  .superRefine((m, ctx) => {
    if (!isRecord(m)) return;
    if (m.enabled === true && Array.isArray(m.names) && m.names.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'must not be empty when measurements are enabled',
        path: ['names'],
      });
    }
  }, always)
  .prefault({})
  .transform((m) => ({
    enabled: m.enabled,
    intervalMs: m.interval,
    maxStalenessMs: m.max_staleness ?? 5 * m.interval,
    names: m.names.map((n) =>
      typeof n === 'string'
        ? { name: n, minSamples: m.min_samples, capabilityMethod: m.capability_method }
        : {
            name: n.name,
            minSamples: n.min_samples ?? m.min_samples,
            capabilityMethod: n.capability_method ?? m.capability_method,
          },
    ),
    minSamples: m.min_samples,
    overlapMs: m.overlap,
    maxRecordsPerRequest: m.max_records_per_request,
    rereadIntervalMs: m.reread_interval,
    retentionMs: m.retention,
    attributes: {
      pass: m.attributes.pass.map((v) => v.toUpperCase()),
      fail: m.attributes.fail.map((v) => v.toUpperCase()),
    },
    control: m.control,
    histograms: m.histograms,
    statistics: m.statistics,
    bySlot: m.by_slot,
  }))
  .describe('Measurement statistics (process capability) per window.');

export const unitsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Export unit counts by result and direction.'),
    interval: interval('units'),
    max_staleness: maxStaleness(),
    overlap: duration()
      .prefault('5m')
      .describe('How far back each poll re-reads, to catch records that arrive late.'),
    reread_interval: rereadInterval(),
    cusum: unitsCusumSchema,
  })
  .prefault({})
  .transform((u) => ({
    enabled: u.enabled,
    cusum: u.cusum,
    intervalMs: u.interval,
    maxStalenessMs: u.max_staleness ?? 5 * u.interval,
    overlapMs: u.overlap,
    rereadIntervalMs: u.reread_interval,
  }))
  .describe('Unit records (tested units by result).');
