/**
 * Keeps the web config current: re-read in the background on traffic at most once a second, so a renewed certificate or new user needs no restart. A failed re-read keeps
 * the last good config (basic auth never switches off on a bad read) and is logged once per problem.
 */
import type { Logger } from 'pino';
import {
  type FileReader,
  loadWebConfig,
  type WebConfig,
  WebConfigError,
  webConfigFileReader,
} from './load.ts';

/** The outcome of the last re-read, for the self-metrics. */
export interface WebConfigStatus {
  readonly lastReloadOk: boolean;
  /** Epoch ms of the last load that succeeded. */
  readonly lastSuccessMs: number;
}

/** The current web config and how its last re-read went. */
export interface WebConfigSource {
  /** The config in force; starts a re-read in the background when a check is due. */
  current(): WebConfig;
  /** Re-reads now, or joins the re-read under way; resolves to the config in force after it. */
  refresh(): Promise<WebConfig>;
  status(): WebConfigStatus;
  /** Called with each new config that replaced the previous one. */
  onChange(listener: (config: WebConfig) => void): void;
}

/** Options of {@link watchWebConfig}. */
export interface WatchOptions {
  readonly path: string;
  readonly logger: Logger;
  /** Default: {@link webConfigFileReader}, one for the life of the watcher. */
  readonly read?: FileReader;
}

/** Minimum time between two re-reads. */
const CHECK_INTERVAL_MS = 1000;

/** Loads the file (a first load that fails stops the start-up) and returns a source that re-reads it. */
export async function watchWebConfig(opts: WatchOptions): Promise<WebConfigSource> {
  const read = opts.read ?? webConfigFileReader();
  return new WebConfigWatcher({ ...opts, read }, await loadWebConfig(opts.path, read));
}

class WebConfigWatcher implements WebConfigSource {
  readonly #opts: WatchOptions;
  readonly #listeners: Array<(c: WebConfig) => void> = [];
  #config: WebConfig;
  #lastCheck: number;
  #status: WebConfigStatus;
  #lastError: string | undefined;
  #running: Promise<WebConfig> | undefined;

  constructor(opts: WatchOptions, config: WebConfig) {
    this.#opts = opts;
    this.#config = config;
    this.#lastCheck = Date.now();
    this.#status = { lastReloadOk: true, lastSuccessMs: this.#lastCheck };
  }

  current(): WebConfig {
    // Failures are handled inside; nothing is left to reject.
    if (this.#running === undefined && Date.now() - this.#lastCheck >= CHECK_INTERVAL_MS) void this.refresh();
    return this.#config;
  }

  refresh(): Promise<WebConfig> {
    this.#running ??= this.#reload().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  // A property, not a method: the self-metrics are handed `source.status` unbound.
  readonly status = (): WebConfigStatus => this.#status;

  onChange(listener: (config: WebConfig) => void): void {
    this.#listeners.push(listener);
  }

  async #reload(): Promise<WebConfig> {
    this.#lastCheck = Date.now();
    let next: WebConfig;
    try {
      next = await loadWebConfig(this.#opts.path, this.#opts.read);
    } catch (err) {
      this.#failed(err);
      return this.#config;
    }
    this.#lastError = undefined;
    const changed = next.fingerprint !== this.#config.fingerprint;
    this.#status = {
      lastReloadOk: true,
      lastSuccessMs: changed ? this.#lastCheck : this.#status.lastSuccessMs,
    };
    if (changed) {
      this.#config = next;
      this.#opts.logger.info({ file: this.#opts.path }, 'web config reloaded');
      for (const l of this.#listeners) l(next);
    }
    return this.#config;
  }

  #failed(err: unknown): void {
    const error = err instanceof WebConfigError ? err.issues.join('; ') : String(err);
    // Re-read every second, a broken file would otherwise log a line a second.
    if (error !== this.#lastError) {
      this.#opts.logger.error({ err: error }, 'web config reload failed; keeping the last good one');
    }
    this.#lastError = error;
    this.#status = { ...this.#status, lastReloadOk: false };
  }
}
