/**
 * Assembles an exporter from a validated config: client, limiter, self-metrics, cache,
 * poller and HTTP app. Shared by the command line and the end-to-end tests, so that both
 * run exactly the same wiring.
 */
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import type { Config } from './config/schema.ts';
import { displayUrl } from './config/summary.ts';
import { createTokenProvider } from './config/token.ts';
import { ExpositionCache } from './exposition/cache.ts';
import { createSelfMetrics, type SelfMetrics } from './exposition/selfmetrics.ts';
import { createPoller, type Poller } from './poller/exporter.ts';
import type { LoopTimers } from './poller/loop.ts';
import type { ReloadResult } from './reload.ts';
import { createApp } from './server/app.ts';
import { createClient, type UpstreamClient } from './upstream/client.ts';
import { jwtExpiry } from './upstream/jwt.ts';
import { createLimiter } from './upstream/limiter.ts';
import { VERSION } from './version.ts';

/** Optional injections, mostly for tests. */
export interface WireOptions {
  readonly logger?: Logger;
  readonly clock?: () => number;
  readonly dispatcher?: Dispatcher;
  readonly timers?: LoopTimers;
  readonly random?: () => number;
  readonly registry?: Registry;
  /** Handler of POST /-/reload; without it the route answers 404. */
  readonly reload?: () => Promise<ReloadResult>;
}

/** A wired exporter, not yet polling. */
export interface Exporter {
  readonly config: Config;
  readonly client: UpstreamClient;
  readonly poller: Poller;
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  readonly self: SelfMetrics;
  readonly app: ReturnType<typeof createApp>;
  readonly logger: Logger;
  /** Stops polling and closes upstream connections. */
  close(): Promise<void>;
}

/** Creates a logger writing JSON lines to stderr, so that stdout stays free for `once`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { app: 'station-exporter' } }, pino.destination(2));
}

/** Wires an exporter from a validated config. */
export function wireExporter(config: Config, opts: WireOptions = {}): Exporter {
  const logger = opts.logger ?? createLogger(config.log.level);
  const registry = opts.registry ?? new Registry();
  const clock = opts.clock ?? Date.now;
  const self = createSelfMetrics(registry, { version: VERSION, now: clock });
  self.initEndpoints(['sites', 'site', 'station_summary', 'metrics', 'units']);
  const tokens = createTokenProvider(config.upstream.token);
  let lastToken: string | undefined;
  const token = async () => {
    const t = await tokens.get();
    if (t !== lastToken) {
      lastToken = t;
      self.setTokenExpiry(jwtExpiry(t));
    }
    return t;
  };
  const client = createClient({
    baseUrl: config.upstream.baseUrl,
    token,
    timeoutMs: config.upstream.timeoutMs,
    dispatcher: opts.dispatcher,
    limiter: createLimiter({
      concurrency: config.upstream.concurrency,
      ratePerSecond: config.upstream.maxRequestsPerSecond,
    }),
    onRequest: (e) => self.observeRequest(e.endpoint, e.statusClass, e.seconds, e.bytes),
    onSkipped: (endpoint, reason, n) => {
      self.recordSkipped(endpoint, reason, n);
      logger.debug({ endpoint, reason, n }, 'upstream records skipped at the edge');
    },
  });
  const cache = new ExpositionCache();
  const poller = createPoller({
    config,
    client,
    cache,
    self,
    logger,
    clock,
    timers: opts.timers,
    random: opts.random,
  });
  const app = createApp({
    cache,
    registry,
    self,
    version: VERSION,
    status: () => poller.status(),
    ready: () => poller.ready(),
    upstream: displayUrl(config.upstream.baseUrl),
    clock,
    reload: opts.reload,
  });
  return {
    config,
    client,
    poller,
    cache,
    registry,
    self,
    app,
    logger,
    async close() {
      await poller.stop();
      await client.close();
    },
  };
}
