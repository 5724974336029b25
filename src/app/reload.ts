/**
 * Config reload (SIGHUP or POST /-/reload): the new config is validated and polled once
 * before it replaces the running exporter, so a bad file or an unreachable upstream never
 * leaves /metrics empty. A reload keeps what it can: the self-metrics always (counters never
 * start again from 0), the upstream client when its settings are unchanged, and each
 * collector's job and store when that collector's settings are unchanged too, so the poll a
 * reload runs is incremental instead of a download of the whole history. Running polls are
 * let finish, not aborted. The listen address is fixed for the process: changing it needs a
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
  /** Wires an exporter for `config`, taking over what it can from `previous`. */
  readonly wire: (config: Config, previous: Exporter) => Exporter;
  readonly logger: Logger;
  readonly load?: (path: string) => Promise<Config>;
  /** Wall clock, epoch ms, for the reload timestamp. */
  readonly wallClock?: () => number;
}

/**
 * Creates a reloader. One reload runs at a time: a reload asked for while one runs joins it
 * and gets its result, so a loop of requests cannot multiply the upstream load.
 */
export function createReloader(opts: ReloaderOptions): Reloader {
  let current = opts.initial;
  let running: Promise<ReloadResult> | undefined;
  const load = opts.load ?? loadConfig;
  const wallClock = opts.wallClock ?? Date.now;

  const fail = (error: string): ReloadResult => {
    opts.logger.error({ err: error }, 'config reload failed; keeping the running config');
    current.self.recordReload({ ok: false, nowMs: wallClock() });
    return { ok: false, error };
  };

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
      return fail(err instanceof ConfigError ? err.issues.join('; ') : String(err));
    }
    if (config.server.listenAddress !== current.config.server.listenAddress) {
      opts.logger.warn('server.listen_address changed: restart the exporter to apply it');
    }
    const previous = current;
    const next = opts.wire(config, previous);
    const keepClient = next.client === previous.client;
    // Kept jobs must not be polled by both schedulers at once: let the running polls finish.
    await previous.scheduler.drain();
    await next.scheduler.pollOnce();
    if (next.scheduler.currentTopology() === undefined) {
      await next.close({ keepClient });
      previous.scheduler.start({ alreadyPolled: true });
      return fail('the new config could not discover any site (is the upstream reachable?)');
    }
    current = next;
    next.scheduler.start({ alreadyPolled: true });
    await previous.close({ keepClient });
    next.self.recordReload({ ok: true, nowMs: wallClock() });
    opts.logger.info({ kept_client: keepClient }, 'config reloaded');
    return { ok: true };
  }

  return {
    current: () => current,
    reload() {
      running ??= reloadNow().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
