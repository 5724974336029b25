/**
 * Keeps the web config current: the file and the files it names are re-read when a connection
 * or request comes in and the last check is at least `checkIntervalMs` old, so that a renewed
 * certificate or a new user takes effect without a restart. A file that became bad leaves the
 * last good config in place; the failure is logged once per distinct content and exported.
 */
import type { Logger } from 'pino';
import { type FileReader, loadWebConfig, type WebConfig, WebConfigError } from './load.ts';

/** The outcome of the last re-read, for the self-metrics. */
export interface WebConfigStatus {
  readonly lastReloadOk: boolean;
  /** Epoch ms of the last load that succeeded (the first one at start-up). */
  readonly lastSuccessMs: number;
}

/** The current web config and how its last re-read went. */
export interface WebConfigSource {
  /** The config in force, after re-reading the files if a check is due. */
  current(): WebConfig;
  /** Re-reads now, whatever the interval; returns the config in force. */
  refresh(): WebConfig;
  status(): WebConfigStatus;
  /** Called with each new config that replaced the previous one. */
  onChange(listener: (config: WebConfig) => void): void;
}

/** Options of {@link watchWebConfig}. */
export interface WatchOptions {
  readonly path: string;
  readonly logger: Logger;
  readonly clock?: () => number;
  readonly read?: FileReader;
  /** Minimum time between two re-reads; default 1000 ms. */
  readonly checkIntervalMs?: number;
}

/**
 * Loads the file (throwing {@link WebConfigError} when the first load fails, so that a bad file
 * stops the start-up) and returns a source that re-reads it.
 */
export function watchWebConfig(opts: WatchOptions): WebConfigSource {
  const clock = opts.clock ?? Date.now;
  const interval = opts.checkIntervalMs ?? 1000;
  const load = (): WebConfig => loadWebConfig(opts.path, opts.read);
  let config = load();
  let lastCheck = clock();
  let status: WebConfigStatus = { lastReloadOk: true, lastSuccessMs: lastCheck };
  let lastError: string | undefined;
  const listeners: Array<(c: WebConfig) => void> = [];

  const refresh = (): WebConfig => {
    lastCheck = clock();
    let next: WebConfig;
    try {
      next = load();
    } catch (err) {
      const error = err instanceof WebConfigError ? err.issues.join('; ') : String(err);
      // Re-read every second, a broken file would otherwise log a line a second.
      if (error !== lastError)
        opts.logger.error({ err: error }, 'web config reload failed; keeping the last good one');
      lastError = error;
      status = { ...status, lastReloadOk: false };
      return config;
    }
    lastError = undefined;
    status = {
      lastReloadOk: true,
      lastSuccessMs: next.fingerprint === config.fingerprint ? status.lastSuccessMs : lastCheck,
    };
    if (next.fingerprint !== config.fingerprint) {
      config = next;
      opts.logger.info({ file: opts.path }, 'web config reloaded');
      for (const l of listeners) l(config);
    }
    return config;
  };

  return {
    current: () => (clock() - lastCheck >= interval ? refresh() : config),
    refresh,
    status: () => status,
    onChange: (l) => {
      listeners.push(l);
    },
  };
}
