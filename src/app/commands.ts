/** The command implementations behind `src/cli.ts`. Each returns the process exit code. */
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { standaloneDependencies } from '../collectors/collector.ts';
import { DISCOVERY, describeCollectors } from '../collectors/index.ts';
import { describeConfig } from '../config/describe.ts';
import { formatDuration } from '../config/duration.ts';
import { LimitsFileError } from '../config/limits-schema.ts';
import { ConfigError, configFromObject, loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { tokenFileModeWarning } from '../config/token.ts';
import { planFor, plantOf } from '../planning/budget.ts';
import { renderPlan } from '../planning/plan-text.ts';
import { estimateSeries, renderSeries, type SeriesCounts } from '../planning/series-estimate.ts';
import type { ReloadResult } from '../server/app.ts';
import { registerConnectionMetrics } from '../server/connection-metrics.ts';
import {
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  type RunningHttpServer,
  startHttpServer,
} from '../server/http.ts';
import { singleFlight } from '../server/lifecycle.ts';
import {
  addressTarget,
  type ListenFailure,
  serverUrl,
  startServers,
  sumConnectionStats,
  systemdTargets,
} from '../server/listen.ts';
import { loadWebConfig, WebConfigError } from '../server/web-config/load.ts';
import { registerWebConfigMetrics } from '../server/web-config/metrics.ts';
import { type WebConfigSource, watchWebConfig } from '../server/web-config/watch.ts';
import { resolveShard, type Shard } from '../sharding/shard.ts';
import { UpstreamError } from '../upstream/errors.ts';
import { LoopYielder } from '../util/loop-yield.ts';
import { maskCredentialLike, Redactor } from '../util/redact.ts';
import { limitsReport } from './limits-report.ts';
import { Reloader } from './reload.ts';
import { SHUTDOWN_DEADLINE_MS, Shutdown } from './shutdown.ts';
import { createLogger, type Exporter, type LogSettings, wireExporter } from './wire.ts';

export interface RunOptions {
  readonly configPath?: string;
  /** `--web.listen-address`, repeatable: one server on each; none: the config's `server.listen_address`. */
  readonly listenAddresses?: readonly string[];
  /** `--web.systemd-socket`: serve on the sockets systemd handed over instead of listen addresses. */
  readonly systemdSocket?: boolean;
  /** `--web.telemetry-path`: where the metrics are served; default `/metrics`. */
  readonly telemetryPath?: string;
  /** `--web.disable-exporter-metrics`: leave out the `process_*` and `nodejs_*` families. */
  readonly disableExporterMetrics?: boolean;
  readonly logLevel?: string;
  /** `--log.format`: logfmt (default) or json. */
  readonly logFormat?: LogSettings['format'];
  /** `--web.config.file`: TLS, basic auth, rate limit, headers. */
  readonly webConfigFile?: string;
  /** `--web.enable-lifecycle`: POST /-/reload is allowed. */
  readonly enableLifecycle?: boolean;
  readonly limits?: HttpLimits;
  /** `--shard i/n`. */
  readonly shard?: string;
}

/** This replica's shard from the flag, the config, or the StatefulSet pod name and STATION_EXPORTER_SHARDS. */
function shardOf(config: Config, flag: string | undefined): Shard {
  const result = resolveShard({
    flag,
    config: config.sharding.shard,
    hostname: hostname(),
    totalFromEnv: process.env.STATION_EXPORTER_SHARDS,
  });
  if ('error' in result) throw new ConfigError('the shard settings', [`sharding: ${result.error}`]);
  return result.shard;
}

/** What `check-config` plans for: counts given on the command line, or the discovered plant. */
export interface CheckOptions {
  readonly counts?: Partial<SeriesCounts>;
  readonly discover?: boolean;
  readonly shard?: string;
}

/** The log settings of a command: the flags win over the config. */
function logSettings(opts: RunOptions, config: Config): LogSettings {
  return { level: opts.logLevel ?? config.log.level, format: opts.logFormat };
}

/** Token and seed of the built-in demo simulator. */
const DEMO = { token: 'demo-token', seed: 42 } as const;

/**
 * The embedded default: a config for the built-in simulator. It goes through the same
 * validation as a file, so the demo cannot drift from what a user could write. It exercises
 * what the shipped rules and dashboards read: the 1h and 24h windows (yield, retry, Ppk), and
 * control charts on three numeric measurements, with a rolling baseline of a day. solder_height
 * is the simulator's one deliberately incapable characteristic (docs/simulator.md).
 */
export function demoConfig(baseUrl: string): Config {
  return configFromObject(
    {
      upstream: { base_url: baseUrl, token: DEMO.token, max_requests_per_second: 500, concurrency: 8 },
      windows: ['1h', '8h', '24h', { name: 'today', type: 'today', timezone: 'UTC' }],
      summary: { interval: '30s' },
      measurements: {
        enabled: true,
        names: ['vcc_3v3', 'idle_current', 'insulation_resistance', 'solder_height', 'firmware_check'],
        // Every demo station measures one of these, so every station has a control chart.
        control: {
          names: ['vcc_3v3', 'idle_current', 'insulation_resistance'],
          baseline: { rolling: '24h' },
        },
      },
    },
    { baseDir: process.cwd(), source: 'built-in demo config' },
  );
}

/** The demo's charted names (see {@link demoConfig}) and its one injected event. */
const DEMO_SHIFT = { name: 'vcc_3v3', sigmas: 3, afterMs: 5 * 60_000 } as const;

/**
 * The demo plant's process: no slow drift (so that the control charts are quiet), and one
 * sustained 3 sigma shift of vcc_3v3 on one station five minutes after start, so that a
 * newcomer sees the CUSUM catch it (one MeasurementShiftDetected notification) while every
 * other chart stays quiet. The station is one without slots and outside any group, so that
 * the chart gets every unit of its line (a point every 2 minutes): slots or a parallel group
 * would split those points and delay the signal by the same factor.
 */
export async function demoProcess(seed: number, startMs: number) {
  // The plant model says which stations measure the name; no records need generating.
  const { buildPlant, DEFAULT_SCALE } = await import('../simulator/plant.ts');
  const station = [...buildPlant(seed, DEFAULT_SCALE).stationsById.values()].find(
    (s) => s.slots === 0 && s.groupId === undefined && s.measures.some((m) => m.name === DEMO_SHIFT.name),
  );
  return {
    drift: false,
    events: station
      ? [
          {
            kind: 'shift' as const,
            stationId: station.id,
            name: DEMO_SHIFT.name,
            fromMs: startMs + DEMO_SHIFT.afterMs,
            sigmas: DEMO_SHIFT.sigmas,
          },
        ]
      : [],
  };
}

async function startDemoSimulator() {
  const { startSimulatorServer } = await import('../simulator/index.ts');
  return startSimulatorServer({
    port: 0,
    host: '127.0.0.1',
    seed: DEMO.seed,
    tokens: { [DEMO.token]: { sites: 'all' } },
    process: await demoProcess(DEMO.seed, Date.now()),
  });
}

/**
 * Everything a command writes to stdout and stderr, passed through the process's redactor:
 * error messages may quote a value from the config or an upstream answer, and either may hold
 * the token.
 */
class Output {
  /** Masks every token the loader saw. */
  readonly redactor = new Redactor();

  /** Writes to stderr, masked. */
  err(text: string): void {
    process.stderr.write(this.#masked(text));
  }

  /** Writes to stdout, masked. */
  out(text: string): void {
    process.stdout.write(this.#masked(text));
  }

  /** Loads a config file, teaching the redactor every token the loader sees. */
  load(path: string): Promise<Config> {
    return loadConfig(path, process.env, { onSecret: (s) => this.redactor.add(s) });
  }

  /** Known tokens, and what looks like one: a token pasted into another field is unknown. */
  #masked(text: string): string {
    return maskCredentialLike(this.redactor.redact(text));
  }
}

/** Loads the config, or the demo config with a simulator when no path is given. */
async function resolveConfig(
  opts: RunOptions,
  io: Output,
): Promise<{ config: Config; close: () => Promise<void>; demoUrl?: string }> {
  if (opts.configPath) {
    return { config: await io.load(opts.configPath), close: async () => {} };
  }
  const sim = await startDemoSimulator();
  const config = demoConfig(sim.url);
  return { config, close: () => sim.close(), demoUrl: sim.url };
}

function reportConfigError(err: unknown, io: Output): number {
  if (err instanceof ConfigError || err instanceof WebConfigError || err instanceof LimitsFileError) {
    io.err(`${err.message}\n`);
    return 2;
  }
  throw err;
}

/** The resolved config, or the exit code after reporting why there is none. */
async function resolveOrReport(
  opts: RunOptions,
  io: Output,
): Promise<Awaited<ReturnType<typeof resolveConfig>> | number> {
  try {
    return await resolveConfig(opts, io);
  } catch (err) {
    return reportConfigError(err, io);
  }
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

/**
 * What check-config says without plant counts: the plan depends on the plant's size, so that a
 * reader who expected it learns how to get it.
 */
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
      client: exporter.client,
      logger: exporter.logger,
      yielder: new LoopYielder(),
      redact: redactor.apply,
      ...standaloneDependencies(),
      shard,
    });
    const { topology } = await job.poll({ now: new Date() });
    return { counts: plantOf(topology).counts, stationIds: topology.stations.map((s) => s.id) };
  } finally {
    await exporter.close();
  }
}

/**
 * The request plan and the series estimate, as check-config prints them: for this replica's
 * shard, at `now`.
 */
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

/** `once`: one complete poll, exposition on stdout. */
export async function runOnce(opts: RunOptions): Promise<number> {
  const io = new Output();
  const resolved = await resolveOrReport(opts, io);
  if (typeof resolved === 'number') return resolved;
  let shard: Shard;
  try {
    shard = shardOf(resolved.config, opts.shard);
  } catch (err) {
    await resolved.close();
    return reportConfigError(err, io);
  }
  const exporter = wireExporter(resolved.config, {
    logger: createLogger(logSettings(opts, resolved.config), io.redactor),
    shard,
    redactor: io.redactor,
    processMetrics: !opts.disableExporterMetrics,
    metricsPath: opts.telemetryPath,
  });
  try {
    const ok = await exporter.scheduler.pollOnce();
    const res = await exporter.app.request(opts.telemetryPath ?? '/metrics', {
      headers: { accept: 'text/plain' },
    });
    // The exposition as is: it is data, not messages, and holds no error text.
    process.stdout.write(await res.text());
    // Each failed poll was logged as a warning; only a log level that hides warnings needs
    // the summary, so that each error shows once.
    if (!ok && !exporter.logger.isLevelEnabled('warn')) {
      const failed = exporter.scheduler.status().filter((s) => !s.lastOk);
      for (const s of failed)
        io.err(`station-exporter: ${s.name}: ${s.lastError ?? 'poll had failed requests'}\n`);
    }
    return ok ? 0 : 1;
  } finally {
    await exporter.close();
    await resolved.close();
  }
}

/**
 * Default command: serve until SIGTERM/SIGINT, then shut down within {@link SHUTDOWN_DEADLINE_MS};
 * SIGHUP reloads the config.
 */
export async function runServe(opts: RunOptions): Promise<number> {
  const io = new Output();
  const resolved = await resolveOrReport(opts, io);
  if (typeof resolved === 'number') return resolved;
  const logger = createLogger(logSettings(opts, resolved.config), io.redactor);
  let setup: ServeSetup;
  try {
    setup = await serveSetup(opts, { config: resolved.config, logger });
  } catch (err) {
    await resolved.close();
    return reportConfigError(err, io);
  }
  const { reloader, reload } = serveReloader(opts, { config: resolved.config, io, logger, setup });
  const servers = await listen(opts, { config: resolved.config, reloader, logger, setup });
  if (servers === undefined) {
    await reloader.current().close();
    await resolved.close();
    return 1;
  }
  // On the first exporter's registry, which every reload hands on.
  registerConnectionMetrics(
    reloader.current().registry,
    sumConnectionStats(servers.map((s) => s.connections)),
  );
  // Signal handlers before the address is printed: whoever reads it may signal at once.
  handleSignals({ servers, reloader, reload, logger, closeDemo: resolved.close });
  announce(servers, { opts, io, logger, demoUrl: resolved.demoUrl });
  reloader.current().scheduler.start();
  return -1;
}

/** What serving needs beside the config: this replica's shard and the watched web config. */
interface ServeSetup {
  readonly shard: Shard;
  readonly webConfig: WebConfigSource | undefined;
}

async function serveSetup(
  opts: RunOptions,
  { config, logger }: { readonly config: Config; readonly logger: Logger },
): Promise<ServeSetup> {
  const shard = shardOf(config, opts.shard);
  const webConfig = opts.webConfigFile
    ? await watchWebConfig({ path: opts.webConfigFile, logger })
    : undefined;
  return { shard, webConfig };
}

/**
 * The first exporter, in a reloader that wires the next one from a reloaded config; and the
 * reload that SIGHUP and POST /-/reload (with the lifecycle API on) run.
 */
function serveReloader(
  opts: RunOptions,
  deps: { readonly config: Config; readonly io: Output; readonly logger: Logger; readonly setup: ServeSetup },
): { readonly reloader: Reloader; readonly reload: () => Promise<ReloadResult> } {
  const { io, logger } = deps;
  const { shard, webConfig } = deps.setup;
  // One reload at a time; SIGHUP and POST /-/reload asked for during one get its result.
  const reload = singleFlight(() => reloader.reload());
  // A reload hands the previous exporter over: its registry, and with it the web config
  // metrics registered once on the first one, lives on.
  const wire = (c: Config, previous?: Exporter) => {
    const exporter = wireExporter(c, {
      logger,
      reload: opts.enableLifecycle ? reload : undefined,
      previous,
      redactor: io.redactor,
      processMetrics: !opts.disableExporterMetrics,
      metricsPath: opts.telemetryPath,
      // A reload keeps the shard this replica started with unless the flag is absent and the config changes it.
      shard: opts.shard ? shard : shardOf(c, undefined),
    });
    if (webConfig && !previous) registerWebConfigMetrics(exporter.registry, webConfig.status);
    return exporter;
  };
  const reloader = new Reloader({
    initial: wire(deps.config),
    configPath: opts.configPath,
    wire,
    logger,
    load: (path) => io.load(path),
  });
  return { reloader, reload };
}

/**
 * One HTTP server on each listen address (the flags win over the config) or systemd socket;
 * undefined, logged, when one cannot listen.
 */
async function listen(
  opts: RunOptions,
  deps: {
    readonly config: Config;
    readonly reloader: Reloader;
    readonly logger: Logger;
    readonly setup: ServeSetup;
  },
): Promise<RunningHttpServer[] | undefined> {
  const { reloader, logger } = deps;
  const listenAddresses = opts.listenAddresses?.length
    ? opts.listenAddresses
    : [deps.config.server.listenAddress];
  try {
    return await startServers(
      opts.systemdSocket ? systemdTargets() : listenAddresses.map(addressTarget),
      (target) =>
        startHttpServer({
          // Requests go to whichever exporter is current, so a reload swaps it without a restart.
          fetch: (req, env) => reloader.current().app.fetch(req, env),
          ...target,
          limits: opts.limits ?? DEFAULT_HTTP_LIMITS,
          webConfig: deps.setup.webConfig,
          logger,
        }),
    );
  } catch (err) {
    // Once, through the logger: the log is where an operator looks.
    const failure = err as ListenFailure;
    logger.error({ listen: failure.address, code: failure.code }, failure.message);
    return undefined;
  }
}

/** SIGTERM and SIGINT shut down in steps within {@link SHUTDOWN_DEADLINE_MS}; SIGHUP reloads. */
function handleSignals(deps: {
  readonly servers: readonly RunningHttpServer[];
  readonly reloader: Reloader;
  readonly reload: () => Promise<ReloadResult>;
  readonly logger: Logger;
  readonly closeDemo: () => Promise<void>;
}): void {
  const { servers, reloader, logger } = deps;
  const shutdown = new Shutdown({
    logger,
    deadlineMs: SHUTDOWN_DEADLINE_MS,
    timers: { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
    runningPolls: () => reloader.current().scheduler.runningPolls(),
    exit: (code) => process.exit(code),
  });
  const stop = () =>
    void shutdown.run([
      { name: 'closing the listeners', run: () => Promise.all(servers.map((s) => s.close())).then(() => {}) },
      { name: 'waiting for running polls', run: () => reloader.current().close() },
      { name: 'closing the demo simulator', run: deps.closeDemo },
    ]);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('SIGHUP', () => void deps.reload());
}

/** Logs each listener and prints where the metrics are, and says so when it runs the demo. */
function announce(
  servers: readonly RunningHttpServer[],
  {
    opts,
    io,
    logger,
    demoUrl,
  }: { opts: RunOptions; io: Output; logger: Logger; demoUrl: string | undefined },
): void {
  const path = opts.telemetryPath ?? '/metrics';
  for (const server of servers) {
    const where =
      server.fd === undefined ? serverUrl(server) : `the socket systemd passed as fd ${server.fd}`;
    logger.info({ listen: where, tls: server.tls, lifecycle: opts.enableLifecycle ?? false }, 'listening');
    // The address on a line of its own, for whoever started it and for tests that read the port.
    io.err(`station-exporter: metrics at ${where}${server.fd === undefined ? path : ` (${path})`}\n`);
  }
  if (demoUrl) {
    io.err(
      `station-exporter: demo mode: polling the built-in simulator at ${demoUrl} with its public demo token (docs/simulator.md)\n`,
    );
  }
}
