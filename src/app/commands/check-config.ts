/** `check-config`: validates the config and web config files, and plans for a plant. */
import { statSync } from 'node:fs';
import { DISCOVERY, describeCollectors } from '../../collectors/index.ts';
import { describeConfig } from '../../config/describe.ts';
import { formatDuration } from '../../config/duration.ts';
import type { Config } from '../../config/schema.ts';
import { tokenFileModeWarning } from '../../config/token.ts';
import { planFor, plantOf } from '../../planning/budget.ts';
import { renderPlan } from '../../planning/plan-text.ts';
import { estimateSeries, renderSeries, type SeriesCounts } from '../../planning/series-estimate.ts';
import { loadWebConfig } from '../../server/web-config/load.ts';
import type { Shard } from '../../sharding/shard.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { Redactor } from '../../util/redact.ts';
import { limitsReport } from '../limits-report.ts';
import { createLogger, wireExporter } from '../wire.ts';
import { shardOf } from './options.ts';
import { Output, reportConfigError } from './output.ts';

/** What `check-config` plans for: counts given on the command line, or the discovered plant. */
export interface CheckOptions {
  readonly counts?: Partial<SeriesCounts>;
  readonly discover?: boolean;
  readonly shard?: string;
}

/** `check-config [FILE] [--web.config.file FILE] [counts] [--discover] [--shard i/n]`: every file given is checked. */
export async function runCheckConfig(
  path: string | undefined,
  webConfigPath?: string,
  opts: CheckOptions = {},
): Promise<number> {
  const io = new Output();
  const configCode = path === undefined ? 0 : await checkConfigFile(path, { io, opts });
  const webCode = webConfigPath === undefined ? 0 : await checkWebConfigFile(webConfigPath, io);
  // The web config's error wins, as it is reported last.
  return webCode !== 0 ? webCode : configCode;
}

/** Without plant counts there is no plan: the reader who expected one learns how to get it. */
const PLAN_HINT =
  'request plan and series estimate: give the plant counts (--stations N [--groups N --lines N --sites N ' +
  '--names N --slots N]) or --discover (docs/scaling.md)';

/** Checks a config file and prints its summary, and the plan when counts are given or discovered. */
async function checkConfigFile(
  path: string,
  { io, opts }: { readonly io: Output; readonly opts: CheckOptions },
): Promise<number> {
  try {
    const config = await io.load(path);
    const shard = shardOf(config, opts.shard);
    io.out(`${path}: OK\n${describeConfig(config)}\n${describeCollectors(config, formatDuration)}\n`);
    const token = config.upstream.token;
    const warning =
      token.kind === 'file' ? tokenFileModeWarning(token.path, statSync(token.path).mode) : undefined;
    if (warning) io.err(`warning: ${warning}\n`);
    const discovered = opts.discover ? await discoveredPlant(config, shard, io.redactor) : undefined;
    const counts = discovered?.counts ?? givenCounts(opts.counts, shard);
    io.out(
      counts === undefined
        ? `${PLAN_HINT}\n`
        : `\n${planReport(config, counts, { shard, now: new Date() })}\n`,
    );
    io.out(await limitsReport(config, { stationIds: discovered?.stationIds, stations: counts?.stations }));
    return 0;
  } catch (err) {
    if (!(err instanceof UpstreamError)) return reportConfigError(err, io);
    io.err(`station-exporter: --discover: ${err.message}\n`);
    return 1;
  }
}

/** Checks a web config file and prints what it sets up. */
async function checkWebConfigFile(path: string, io: Output): Promise<number> {
  try {
    const web = await loadWebConfig(path);
    const tls = web.tls ? `TLS (client certificates: ${web.tls.clientAuth})` : 'plain HTTP';
    const rate = web.rateLimit
      ? `, rate limit ${web.rateLimit.burst} then 1 per ${web.rateLimit.intervalMs} ms`
      : '';
    io.out(`${path}: OK\n  ${tls}, ${web.users.size} basic auth user(s)${rate}\n`);
    return 0;
  } catch (err) {
    return reportConfigError(err, io);
  }
}

/** Counts given on the command line, divided over the shards (rendezvous hashing spreads them evenly). */
function givenCounts(counts: Partial<SeriesCounts> | undefined, shard: Shard): SeriesCounts | undefined {
  if (counts?.stations === undefined) return undefined;
  const share = (n: number) => Math.ceil(n / shard.total);
  return {
    ...counts,
    stations: share(counts.stations),
    groups: share(counts.groups ?? 0),
    lines: share(counts.lines ?? 1),
    sites: share(counts.sites ?? 1),
  };
}

/** Counts and station ids of this replica's share of the plant the upstream reports. */
async function discoveredPlant(
  config: Config,
  shard: Shard,
  redactor: Redactor,
): Promise<{ readonly counts: SeriesCounts; readonly stationIds: readonly string[] }> {
  const exporter = wireExporter(config, {
    logger: createLogger({ level: 'error' }, redactor),
    shard,
    redactor,
  });
  try {
    const job = DISCOVERY.createJob({
      config,
      client: exporter.upstream.client,
      logger: exporter.logger,
      redact: redactor.apply,
      shard,
    });
    const { topology } = await job.poll({ now: new Date() });
    return { counts: plantOf(topology).counts, stationIds: topology.stations.map((s) => s.id) };
  } finally {
    await exporter.close();
  }
}

/** The request plan and the series estimate for this replica's shard at `now`, as check-config prints them. */
export function planReport(
  config: Config,
  counts: SeriesCounts,
  { shard, now }: { readonly shard: Shard; readonly now: Date },
): string {
  const plan = planFor(config, { plant: { counts }, shard, now });
  const idle = !config.summary.skipIdle
    ? 'off (summary.skip_idle: false)'
    : config.units.enabled
      ? 'on: requests for stations without unit records since the last answer are skipped (not counted in the plan)'
      : 'off: it needs the units collector, which is disabled';
  return [
    `Plant (this replica): ${counts.stations} stations, ${counts.groups} groups, ${counts.lines} lines, ${counts.sites} sites; ` +
      `shard ${shard.index}/${shard.total}.`,
    `Idle skipping: ${idle}.`,
    '',
    renderPlan(plan),
    '',
    renderSeries(estimateSeries(config, counts), config.planning.maxSeries),
  ].join('\n');
}
