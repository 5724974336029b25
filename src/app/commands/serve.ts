/** The default command: serve, reload on SIGHUP, shut down on SIGTERM and SIGINT. */
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.ts';
import type { ReloadResult } from '../../server/app.ts';
import { registerConnectionMetrics } from '../../server/connection-metrics.ts';
import { type RunningHttpServer, startHttpServer } from '../../server/http.ts';
import {
  addressTarget,
  type ListenFailure,
  serverUrl,
  startServers,
  sumConnectionStats,
  systemdTargets,
} from '../../server/listen.ts';
import { registerWebConfigMetrics } from '../../server/web-config/metrics.ts';
import { type WebConfigSource, watchWebConfig } from '../../server/web-config/watch.ts';
import type { Shard } from '../../sharding/shard.ts';
import { Reloader } from '../reload.ts';
import type { SHUTDOWN_DEADLINE_MS } from '../shutdown.ts';
import { createLogger, type Exporter, wireExporter } from '../wire.ts';
import type { RunOptions } from './flags.ts';
import { configPath, logSettings, resolveOrReport, shardOf } from './options.ts';
import { Output, reportConfigError } from './output.ts';
import { handleSignals } from './signals.ts';

/** Serves until SIGTERM/SIGINT, then shuts down within {@link SHUTDOWN_DEADLINE_MS}; SIGHUP reloads. */
export async function runServe(opts: RunOptions): Promise<number> {
  const io = new Output();
  const resolved = await resolveOrReport(opts, io);
  if (typeof resolved === 'number') return resolved;
  const logger = createLogger(logSettings(opts, resolved.config), io.redactor);
  let setup: ServeSetup;
  try {
    const webPath = opts['web.config.file'];
    setup = {
      shard: resolved.shard,
      webConfig: webPath ? await watchWebConfig({ path: webPath, logger }) : undefined,
    };
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
  // One reload at a time: SIGHUP and POST /-/reload asked for during one get its result.
  const reload = () => reloader.reload();
  // The web config metrics are registered once: the registry lives on through every reload.
  const wire = (c: Config, previous?: Exporter) => {
    const exporter = wireExporter(c, {
      logger,
      reload: opts['web.enable-lifecycle'] ? reload : undefined,
      previous,
      redactor: io.redactor,
      processMetrics: !opts['web.disable-exporter-metrics'],
      metricsPath: opts['web.telemetry-path'],
      // A reload keeps the shard this replica started with unless the flag is absent and the config changes it.
      shard: opts.shard ? shard : shardOf(c, undefined),
    });
    if (webConfig && !previous) registerWebConfigMetrics(exporter.registry, webConfig.status);
    return exporter;
  };
  const reloader = new Reloader({
    initial: wire(deps.config),
    configPath: configPath(opts),
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
  const listenAddresses = opts['web.listen-address']?.length
    ? opts['web.listen-address']
    : [deps.config.server.listenAddress];
  try {
    return await startServers(
      opts['web.systemd-socket'] ? systemdTargets() : listenAddresses.map(addressTarget),
      (target) =>
        startHttpServer({
          // Requests go to whichever exporter is current, so a reload swaps it without a restart.
          fetch: (req, env) => reloader.current().app.fetch(req, env),
          ...target,
          limits: opts.limits,
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

/** Logs each listener and prints where the metrics are, and says so when it runs the demo. */
function announce(
  servers: readonly RunningHttpServer[],
  { opts, io, logger, demoUrl }: { opts: RunOptions; io: Output; logger: Logger; demoUrl?: string },
): void {
  const path = opts['web.telemetry-path'] ?? '/metrics';
  for (const server of servers) {
    const where =
      server.fd === undefined ? serverUrl(server) : `the socket systemd passed as fd ${server.fd}`;
    logger.info(
      { listen: where, tls: server.tls, lifecycle: opts['web.enable-lifecycle'] ?? false },
      'listening',
    );
    // The address on a line of its own, for whoever started it and for tests that read the port.
    io.err(`station-exporter: metrics at ${where}${server.fd === undefined ? path : ` (${path})`}\n`);
  }
  if (demoUrl) {
    io.err(
      `station-exporter: demo mode: polling the built-in simulator at ${demoUrl} with its public demo token (docs/simulator.md)\n`,
    );
  }
}
