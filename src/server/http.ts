/** The Node HTTP(S) server around the fetch handler: timeouts, the connection cap, the web config. */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { type ConnectionStats, ConnectionTracker, REAL_CONNECTION_TIMERS } from './connections.ts';
import { guardFetch, type NodeFetch } from './web-config/guard.ts';
import { applyTls, tlsServerOptions } from './web-config/tls.ts';
import type { WebConfigSource } from './web-config/watch.ts';

/** Limits on what a client can hold of the server. */
export interface HttpLimits {
  /** Time to send a complete request head; also the TLS handshake and a new connection's first request. */
  readonly headerTimeoutMs: number;
  /** Time to send a complete request, head and body. */
  readonly requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  readonly idleTimeoutMs: number;
  /** From a request's arrival to its response handed to the OS (Go's `WriteTimeout`). */
  readonly writeTimeoutMs: number;
  /** Open connections at most (see connections.ts). */
  readonly maxConnections: number;
  /** How long a response may wait for its client to read before its connection may be evicted. */
  readonly stalledWriteMs: number;
}

/**
 * Defaults: a scrape sends its head at once and gives up within its interval (usually a minute at
 * most). A reader shows progress when half the send buffer (up to 4 MiB, `net.ipv4.tcp_wmem`) has
 * drained: every 4 s at 512 KiB/s, so the stall limit is 5 s (1 s evicted a 1 MiB/s reader).
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  writeTimeoutMs: 60_000,
  maxConnections: 512,
  stalledWriteMs: 5_000,
};

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  readonly fetch: NodeFetch;
  readonly hostname: string | undefined;
  readonly port: number;
  /** A listening socket to serve on instead of `hostname` and `port` (systemd socket activation). */
  readonly fd?: number;
  readonly limits?: HttpLimits;
  readonly webConfig?: WebConfigSource;
  readonly logger?: Logger;
}

/** A listening server. */
export interface RunningHttpServer {
  readonly server: HttpServer | HttpsServer;
  /** As given (undefined: every address), for its URL. */
  readonly hostname: string | undefined;
  readonly port: number;
  /** The inherited socket it serves on, when it was given one. */
  readonly fd?: number;
  readonly tls: boolean;
  readonly connections: ConnectionStats;
  /** Stops accepting, closes idle connections, waits for the rest. */
  close(): Promise<void>;
}

/** Creates the server and listens; rejects when it cannot listen. */
export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const limits = opts.limits ?? DEFAULT_HTTP_LIMITS;
  const source = opts.webConfig;
  const fetch = source ? guardFetch(opts.fetch, { source, logger: opts.logger }) : opts.fetch;
  const listener = getRequestListener(fetch as Parameters<typeof getRequestListener>[0]);
  const tls = source?.current().tls;
  const serverOptions = {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // How often Node checks the two timeouts above; its default (30 s) would stretch short ones.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headerTimeoutMs / 2)),
  };
  const server: HttpServer | HttpsServer = tls
    ? createHttpsServer(
        { ...serverOptions, ...tlsServerOptions(tls), handshakeTimeout: limits.headerTimeoutMs },
        listener,
      )
    : createHttpServer(serverOptions, listener);
  server.keepAliveTimeout = limits.idleTimeoutMs;
  if (source && tls) watchTls(server as HttpsServer, source, opts.logger);
  else
    source?.onChange((c) => {
      if (c.tls) opts.logger?.warn('tls_server_config was added: restart the exporter to serve HTTPS');
    });
  const connections = new ConnectionTracker(server, {
    maxConnections: limits.maxConnections,
    firstRequestTimeoutMs: limits.headerTimeoutMs,
    writeTimeoutMs: limits.writeTimeoutMs,
    stalledWriteMs: limits.stalledWriteMs,
    timers: REAL_CONNECTION_TIMERS,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    if (opts.fd === undefined) server.listen(opts.port, opts.hostname, listening);
    else server.listen({ fd: opts.fd }, listening);
  });
  const address = server.address();
  return {
    server,
    hostname: opts.hostname,
    fd: opts.fd,
    // An inherited Unix socket has no port.
    port: typeof address === 'object' && address !== null ? (address as AddressInfo).port : 0,
    tls: tls !== undefined,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function watchTls(server: HttpsServer, source: WebConfigSource, logger: Logger | undefined): void {
  source.onChange((config) => {
    if (config.tls) applyTls(server, config.tls);
    else
      logger?.warn('tls_server_config was removed: restart the exporter to serve plain HTTP; TLS stays on');
  });
  // Before TLS sees the connection, so the first handshake after a renewal uses the new certificate.
  server.prependListener('connection', () => {
    source.current();
  });
}
