/** The options of the exporter's commands (`serve` and `once`) and what they resolve to. */
import { hostname } from 'node:os';
import { ConfigError } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import { resolveShard, type Shard } from '../../sharding/shard.ts';
import type { LogSettings } from '../wire.ts';
import { demoConfig, startDemoSimulator } from './demo.ts';
import type { RunOptions } from './flags.ts';
import { type Output, reportConfigError } from './output.ts';

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
  // cli.ts checked the format against LOG_FORMATS.
  return {
    level: opts['log.level'] ?? config.log.level,
    format: opts['log.format'] as LogSettings['format'],
  };
}

/** The config file of `--config.file` or its short name `--config`. */
export const configPath = (opts: RunOptions) => opts['config.file'] ?? opts.config;

/**
 * Loads the config, or the demo config with a simulator when no path is given, and this
 * replica's shard; or reports why there is none and returns the exit code.
 */
export async function resolveOrReport(
  opts: RunOptions,
  io: Output,
): Promise<{ config: Config; shard: Shard; close: () => Promise<void>; demoUrl?: string } | number> {
  let close = async () => {};
  try {
    const path = configPath(opts);
    if (path) {
      const config = await io.load(path);
      return { config, shard: shardOf(config, opts.shard), close };
    }
    const sim = await startDemoSimulator();
    close = () => sim.close();
    const config = demoConfig(sim.url);
    return { config, shard: shardOf(config, opts.shard), close, demoUrl: sim.url };
  } catch (err) {
    await close();
    return reportConfigError(err, io);
  }
}
