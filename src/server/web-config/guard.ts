/**
 * The web config in front of every route: rate limit, headers, client certificate, basic auth, in
 * that order (as exporter-toolkit: a request over the rate costs no bcrypt time).
 */

import type { TLSSocket } from 'node:tls';
import type { HttpBindings } from '@hono/node-server';
import type { Logger } from 'pino';
import { BasicAuth } from './auth.ts';
import type { WebConfig } from './load.ts';
import { RateLimiter } from './rate-limit.ts';
import { clientCertAllowed } from './tls.ts';
import type { WebConfigSource } from './watch.ts';

/** A fetch handler as @hono/node-server calls it. */
export type NodeFetch = (req: Request, env: HttpBindings) => Response | Promise<Response>;

/** Options of {@link guardFetch}. */
export interface GuardOptions {
  readonly source: WebConfigSource;
  readonly auth?: BasicAuth;
  /** Where a failed bcrypt thread is reported. */
  readonly logger?: Logger;
}

/** Wraps `inner` so that every request passes the current web config first. */
export function guardFetch(inner: NodeFetch, opts: GuardOptions): NodeFetch {
  const auth = opts.auth ?? new BasicAuth({ onFailure: failureLog(opts.logger) });
  let limiterFor: WebConfig['rateLimit'];
  let limiter: RateLimiter | undefined;
  const limiterOf = (config: WebConfig): RateLimiter | undefined => {
    const r = config.rateLimit;
    // A new bucket only when the limit itself changed, so that a re-read does not refill it.
    if (r?.intervalMs !== limiterFor?.intervalMs || r?.burst !== limiterFor?.burst) {
      limiterFor = r;
      limiter = r && new RateLimiter(r);
    }
    return limiter;
  };

  return async (req, env) => {
    const config = opts.source.current();
    const admitted = limiterOf(config)?.take() ?? { ok: true };
    // Set on the Node response, so that they also reach /metrics, which writes to the socket itself.
    for (const [name, value] of Object.entries(config.headers)) env.outgoing.setHeader(name, value);
    if (!admitted.ok) {
      const retry = String(Math.max(1, Math.ceil(admitted.retryAfterMs / 1000)));
      return new Response('Too many requests\n', { status: 429, headers: { 'retry-after': retry } });
    }
    const socket = env.incoming.socket as Partial<TLSSocket>;
    if (config.tls && socket.encrypted && !clientCertAllowed(socket as TLSSocket, config.tls.clientAuth)) {
      return new Response('A valid client certificate is required\n', { status: 403 });
    }
    if (config.users.size === 0) return inner(req, env);
    const outcome = await auth.check(
      { authorization: req.headers.get('authorization') ?? undefined, client: clientOf(env) },
      config,
    );
    if (outcome === 'ok') return inner(req, env);
    // Full bcrypt queue: answered at once, so that a flood of wrong passwords holds no connection.
    if (outcome === 'busy') {
      return new Response('Too many password checks under way\n', {
        status: 429,
        headers: { 'retry-after': '1' },
      });
    }
    return new Response('Unauthorized\n', {
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="station-exporter", charset="UTF-8"' },
    });
  };
}

function clientOf(env: HttpBindings): string {
  return env.incoming.socket.remoteAddress ?? '';
}

/** At most once a minute: without its thread every check fails, and a flood must not flood the log. */
function failureLog(logger: Logger | undefined): (err: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (err) => {
    if (Date.now() - last < 60_000) return;
    last = Date.now();
    logger?.error({ err }, 'a bcrypt comparison failed: basic auth refuses the request');
  };
}
