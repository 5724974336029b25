/**
 * Config reload (SIGHUP or POST /-/reload): the new config is validated and polled once before it
 * replaces the running exporter, so a bad file or an unreachable upstream never leaves /metrics
 * empty. What is kept (wire.ts) makes that poll incremental. The listen address needs a restart.
 */
import type { Logger } from 'pino';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import type { ReloadResult } from '../server/app.ts';
import { singleFlight } from '../server/lifecycle.ts';
import type { Exporter } from './wire.ts';

/** What a {@link Reloader} starts from and how it wires and loads the next exporter. */
export interface ReloaderOptions {
  readonly initial: Exporter;
  /** The config file to re-read; undefined in demo mode, where there is nothing to reload. */
  readonly configPath: string | undefined;
  /** Wires an exporter for `config`, taking over what it can from `previous`. */
  readonly wire: (config: Config, previous: Exporter) => Exporter;
  readonly logger: Logger;
  readonly load?: (path: string) => Promise<Config>;
}

/**
 * Holds the running exporter and replaces it on reload. A reload asked for while one runs joins
 * it, so a loop of requests cannot multiply the upstream load.
 */
export class Reloader {
  readonly #opts: ReloaderOptions;
  readonly #load: (path: string) => Promise<Config>;
  #current: Exporter;

  constructor(opts: ReloaderOptions) {
    this.#opts = opts;
    this.#current = opts.initial;
    this.#load = opts.load ?? loadConfig;
  }

  current(): Exporter {
    return this.#current;
  }

  /** Reloads the config file, or joins the reload that runs already. */
  readonly reload = singleFlight(() => this.#reloadNow());

  #fail(error: string): ReloadResult {
    this.#opts.logger.error({ err: error }, 'config reload failed; keeping the running config');
    this.#current.self.recordReload({ ok: false, nowMs: this.#current.wallClock() });
    return { ok: false, error };
  }

  async #reloadNow(): Promise<ReloadResult> {
    const opts = this.#opts;
    if (!opts.configPath) {
      return {
        ok: false,
        error: 'demo mode: there is no config file to reload; start with --config FILE',
        noConfig: true,
      };
    }
    let config: Config;
    try {
      config = await this.#load(opts.configPath);
    } catch (err) {
      return this.#fail(err instanceof ConfigError ? err.issues.join('; ') : String(err));
    }
    if (config.server.listenAddress !== this.#current.config.server.listenAddress) {
      opts.logger.warn('server.listen_address changed: restart the exporter to apply it');
    }
    const previous = this.#current;
    const next = opts.wire(config, previous);
    const keepClient = next.upstream.client === previous.upstream.client;
    // Kept jobs must not be polled by both schedulers at once: let the running polls finish.
    await previous.scheduler.drain();
    await next.scheduler.pollOnce();
    if (next.scheduler.currentTopology() === undefined) {
      await next.close({ keepClient });
      previous.scheduler.start({ alreadyPolled: true });
      return this.#fail('the new config could not discover any site (is the upstream reachable?)');
    }
    this.#current = next;
    next.scheduler.start({ alreadyPolled: true });
    await previous.close({ keepClient });
    next.self.recordReload({ ok: true, nowMs: next.wallClock() });
    opts.logger.info({ kept_client: keepClient }, 'config reloaded');
    return { ok: true };
  }
}
