import { z } from 'zod';
import {
  always,
  anchoredRegex,
  camelKeys,
  hexId,
  interval,
  maxStaleness,
  period,
  reportDuplicates,
} from './fields.ts';
import { measurementsSchema, unitsSchema } from './measurements-schema.ts';
import { planningSchema, shardingSchema } from './planning-schema.ts';
import { productsSchema } from './products-schema.ts';
import { targetsSchema } from './targets-schema.ts';
import { upstreamSchema } from './upstream-schema.ts';
import { windowsSchema } from './windows-schema.ts';

export type { WindowStatistic } from './measurements-schema.ts';
export type { WindowSpec } from './windows-schema.ts';

/*
 * The one definition of the configuration file: snake_case YAML keys in, camelCase out, durations in
 * milliseconds and regular expressions compiled. docs/config.md is generated from the descriptions.
 */

/** The summary levels, finest first. */
export const SUMMARY_LEVELS = ['station', 'group', 'line', 'site'] as const;
/** Aggregation levels at which station summaries are exported. */
export type SummaryLevel = (typeof SUMMARY_LEVELS)[number];

function patternList(level: string) {
  return z
    .array(anchoredRegex())
    .prefault([])
    .describe(`Regular expressions matched against each ${level}'s name or id.`);
}

function nameFilter(verb: string) {
  return z
    .strictObject({
      sites: patternList('site'),
      lines: patternList('line'),
      stations: patternList('station'),
    })
    .prefault({})
    .describe(
      `${verb} only the sites, lines and stations whose name or id fully matches one of these regular expressions.`,
    );
}

function idList(description: string) {
  return z
    .array(hexId())
    .default([])
    .superRefine((ids, ctx) => reportDuplicates(ids, ctx, { key: (id) => id, what: 'id' }), always)
    .describe(description);
}

const discoverySchema = z
  .strictObject({
    site_ids: idList(
      'Sites to export (GET /sites/{id} each). Empty: every site the token may access (GET /sites).',
    ),
    station_ids: idList(
      'When not empty, export only these stations; any that are not accessible are reported.',
    ),
    include: nameFilter('Export'),
    exclude: nameFilter('Skip').describe(
      'Skip the sites, lines and stations whose name or id fully matches one of these regular expressions; ' +
        'applied after `include`.',
    ),
    refresh_interval: period()
      .prefault('10m')
      .describe('How often the site/line/station hierarchy is read again.'),
  })
  .transform(({ refresh_interval, ...d }) => ({ ...camelKeys(d), refreshIntervalMs: refresh_interval }))
  .prefault({})
  .describe('Which sites, lines and stations to export.');

const summarySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Export station summary statistics.'),
    interval: interval('station summaries'),
    max_staleness: maxStaleness(),
    levels: z
      .array(z.enum(SUMMARY_LEVELS))
      .min(1)
      .prefault([...SUMMARY_LEVELS])
      .superRefine((levels, ctx) => reportDuplicates(levels, ctx, { key: (l) => l, what: 'level' }), always)
      .describe('Aggregation levels to export: `station`, `group`, `line`, `site`.'),
    yield_scale: z
      .enum(['ratio', 'percent', 'auto'])
      .default('ratio')
      .describe(
        'Scale of the yields and rates the upstream sends: `ratio` (0-1), `percent` (0-100) or `auto` ' +
          '(decided per answer, see "Yield scale" in the README). The exporter always exports ratios; ' +
          'values that contradict the scale are dropped and counted (`reason="scale_mismatch"`).',
      ),
    aggregate_over: z
      .enum(['all_stations', 'exported_stations'])
      .default('all_stations')
      .describe(
        'Stations a group, line or site summary covers: `all_stations` of the element in the /sites ' +
          'hierarchy (discovery filters then only choose the station series), or only the `exported_stations`. ' +
          'The `*_covered_stations` and `*_stations` gauges show covered and total stations.',
      ),
    skip_idle: z
      .boolean()
      .default(true)
      .describe(
        'Skip summary requests for stations with no unit record entering or leaving the window since the ' +
          'previous answer (their summary cannot have changed); needs the units collector. A sample is re-asked to verify.',
      ),
  })
  .prefault({})
  .transform(({ interval, max_staleness, ...s }) => ({
    ...camelKeys(s),
    intervalMs: interval,
    maxStalenessMs: max_staleness ?? 5 * interval,
  }))
  .describe('Station summary statistics (yields, retry rate, unit counts) per window.');

const LISTEN_RE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)?:(\d{1,5})$/;

/** True for `host:port`, `[v6]:port` or `:port`; shared by the config and the command-line flag. */
export function isListenAddress(value: string): boolean {
  return Number(LISTEN_RE.exec(value)?.[1] ?? Number.NaN) <= 65_535;
}

/** Log levels, for the config and the `--log.level` flag. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

const serverSchema = z
  .strictObject({
    listen_address: z
      .string()
      .refine(isListenAddress, {
        error: (iss) => `must be host:port or :port, got "${String(iss.input)}"`,
      })
      .default(':9732')
      .describe('Address of the HTTP server: `host:port` or `:port` for all interfaces.'),
  })
  .prefault({})
  .transform(camelKeys)
  .describe('The HTTP server that serves /metrics.');

const logSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('Lowest level that is logged.'),
  })
  .prefault({})
  .describe('Logging.');

/** What group, line and site summaries cover. */
export type SummaryAggregateOver = z.output<typeof summarySchema>['aggregateOver'];
/** Keys by window name (planning.refresh, measurements.statistics.windows) must name a configured window. */
function checkWindowKeys(c: Sections, ctx: z.core.$RefinementCtx): void {
  const names = new Set(c.windows.map((w) => w.name));
  const check = (keys: Iterable<string>, path: (string | number)[]) => {
    for (const k of keys) {
      if (!names.has(k)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${k}" is not the name of a configured window`,
          path: [...path, k],
        });
      }
    }
  };
  check(c.planning.refreshMs.keys(), ['planning', 'refresh']);
  check(c.measurements.statistics.windows.keys(), ['measurements', 'statistics', 'windows']);
}

/** Products as a label or a chart key need the allow-list, and charts per product the units collector. */
function checkProducts(c: Sections, ctx: z.core.$RefinementCtx): void {
  const charted = c.measurements.control.names.findIndex((n) => n.byProduct);
  if ((c.products.label || charted >= 0) && c.products.allow.length === 0) {
    const by = c.products.label ? 'products.label' : `measurements.control.names[${charted}].by_product`;
    ctx.addIssue({
      code: 'custom',
      message: `must list at least one product for ${by}`,
      path: ['products', 'allow'],
    });
  }
  if (charted >= 0 && !c.units.enabled)
    ctx.addIssue({
      code: 'custom',
      message:
        "needs the units collector (units.enabled): a measurement's product comes from its unit's records",
      path: ['measurements', 'control', 'names', charted, 'by_product'],
    });
}

const sections = z.strictObject({
  upstream: upstreamSchema,
  discovery: discoverySchema,
  windows: windowsSchema,
  summary: summarySchema,
  measurements: measurementsSchema,
  units: unitsSchema,
  products: productsSchema,
  targets: targetsSchema,
  planning: planningSchema,
  sharding: shardingSchema,
  server: serverSchema,
  log: logSchema,
});
type Sections = z.output<typeof sections>;

/** The configuration file's schema: snake_case YAML in, camelCase {@link Config} data out. */
export const configSchema = sections
  .superRefine(checkWindowKeys)
  .superRefine(checkProducts)
  .describe('station-exporter configuration.');

/** The validated configuration data, before it is branded by the loader. */
export type ConfigData = z.output<typeof configSchema>;

declare const configBrand: unique symbol;

/**
 * A validated configuration. The brand means only the loader (`src/config/load.ts`) can produce one,
 * so the runtime never sees unchecked config.
 */
export type Config = ConfigData & { readonly [configBrand]: true };
