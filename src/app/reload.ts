/**
 * Config reload (SIGHUP or POST /-/reload): the new config is validated and polled once
 * before it replaces the running exporter, so a bad file or an unreachable upstream never
 * leaves /metrics empty. The listen address is fixed for the process: changing it needs a
 * restart.
 */
import type { Logger } from 'pino';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import type { ReloadResult } from '../server/app.ts';
import type { Exporter } from './wire.ts';

export interface Reloader {
  current(): Exporter;
  reload(): Promise<ReloadResult>;
}

export interface ReloaderOptions {
  readonly initial: Exporter;
  /** The config file to re-read; undefined in demo mode, where there is nothing to reload. */
  readonly configPath: string | undefined;
  readonly wire: (config: Config) => Exporter;
  readonly logger: Logger;
  readonly load?: (path: string) => Promise<Config>;
}

/** Creates a reloader. Concurrent reloads are serialized: each one sees the file as it is then. */
export function createReloader(opts: ReloaderOptions): Reloader {
  let current = opts.initial;
  let chain: Promise<unknown> = Promise.resolve();
  const load = opts.load ?? loadConfig;

  async function reloadNow(): Promise<ReloadResult> {
    if (!opts.configPath) {
      return {
        ok: false,
        error: 'demo mode: there is no config file to reload; start with --config FILE',
        noConfig: true,
      };
    }
    let config: Config;
    try {
      config = await load(opts.configPath);
    } catch (err) {
      const error = err instanceof ConfigError ? err.issues.join('; ') : String(err);
      opts.logger.error({ err: error }, 'config reload failed; keeping the running config');
      return { ok: false, error };
    }
    if (config.server.listenAddress !== current.config.server.listenAddress) {
      opts.logger.warn('server.listen_address changed: restart the exporter to apply it');
    }
    const next = opts.wire(config);
    await next.scheduler.pollOnce();
    if (next.scheduler.currentTopology() === undefined) {
      await next.close();
      const error = 'the new config could not discover any site (is the upstream reachable?)';
      opts.logger.error({ err: error }, 'config reload failed; keeping the running config');
      return { ok: false, error };
    }
    const previous = current;
    current = next;
    next.scheduler.start({ alreadyPolled: true });
    await previous.close();
    opts.logger.info('config reloaded');
    return { ok: true };
  }

  return {
    current: () => current,
    reload() {
      const run = chain.then(reloadNow, reloadNow);
      chain = run;
      return run;
    },
  };
}
