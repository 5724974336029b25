/** The options of the exporter's commands (`serve` and `once`) and what they resolve to. */
import { hostname } from 'node:os';
import { ConfigError } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import type { HttpLimits } from '../../server/http.ts';
import { resolveShard, type Shard } from '../../sharding/shard.ts';
import type { LogSettings } from '../wire.ts';
import { demoConfig, startDemoSimulator } from './demo.ts';
import { type Output, reportConfigError } from './output.ts';

/** The flags of `serve` and `once`; absent ones take the config's value or the default. */
export interface RunOptions {
  readonly configPath?: string;
  /** One server on each; none: the config's `server.listen_address`. */
  readonly listenAddresses?: readonly string[];
  readonly systemdSocket?: boolean;
  readonly telemetryPath?: string;
  readonly disableExporterMetrics?: boolean;
  readonly logLevel?: string;
  readonly logFormat?: LogSettings['format'];
  readonly webConfigFile?: string;
  readonly enableLifecycle?: boolean;
  readonly limits?: HttpLimits;
  readonly shard?: string;
}

/** This replica's shard from the flag, the config, or the StatefulSet pod name and STATION_EXPORTER_SHARDS. */
export function shardOf(config: Config, flag: string | undefined): Shard {
  const result = resolveShard({
    flag,
    config: config.sharding.shard,
    hostname: hostname(),
    totalFromEnv: process.env.STATION_EXPORTER_SHARDS,
  });
  if ('error' in result) throw new ConfigError('the shard settings', [`sharding: ${result.error}`]);
  return result.shard;
}

/** The log settings of a command: the flags win over the config. */
export function logSettings(opts: RunOptions, config: Config): LogSettings {
  return { level: opts.logLevel ?? config.log.level, format: opts.logFormat };
}

/** Loads the config, or the demo config with a simulator when no path is given. */
async function resolveConfig(
  opts: RunOptions,
  io: Output,
): Promise<{ config: Config; close: () => Promise<void>; demoUrl?: string }> {
  if (opts.configPath) return { config: await io.load(opts.configPath), close: async () => {} };
  const sim = await startDemoSimulator();
  return { config: demoConfig(sim.url), close: () => sim.close(), demoUrl: sim.url };
}

/** The resolved config, or the exit code after reporting why there is none. */
export async function resolveOrReport(
  opts: RunOptions,
  io: Output,
): Promise<Awaited<ReturnType<typeof resolveConfig>> | number> {
  try {
    return await resolveConfig(opts, io);
  } catch (err) {
    return reportConfigError(err, io);
  }
}
