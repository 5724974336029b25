/**
 * The HTTP face of the exporter. It knows nothing of the upstream: it serves the cached
 * exposition, the self-metrics, and the scheduler's status.
 */
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type MiddlewareHandler } from 'hono';
import type { SummaryWindowProgress } from '../collectors/collector.ts';
import type { ExpositionCache } from '../exposition/cache.ts';
import type { Registry } from '../exposition/client.ts';
import { negotiate } from '../exposition/negotiate.ts';
import type { SelfMetrics } from '../exposition/selfmetrics.ts';
import type { CollectorStatus } from '../scheduler/status.ts';
import { landingPage } from './landing.ts';
import { LIFECYCLE_DISABLED } from './lifecycle.ts';
import { createTailMemo } from './self-metrics-tail.ts';
import { type StatusModel, statusPage, windowProgressText } from './status-page.ts';
import { writeBody } from './write-body.ts';

/** The outcome of a reload, safe to show (config errors never contain the token). */
export type ReloadResult =
  | { readonly ok: true }
  /** `noConfig`: there is no config file to reload (demo mode), a client error rather than a failure. */
  | { readonly ok: false; readonly error: string; readonly noConfig?: true };

/** What the server needs from the rest of the exporter. */
export interface AppDeps {
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  readonly self: SelfMetrics;
  readonly version: string;
  readonly status: () => readonly CollectorStatus[];
  readonly ready: () => boolean;
  /**
   * Each summary window's progress, shortest first, told by `/-/ready` in a second line. It does
   * not decide readiness: see {@link readinessText}.
   */
  readonly windows?: () => readonly SummaryWindowProgress[];
  /** Where the upstream is, shown on the landing page (no credentials). */
  readonly upstream: string;
  /** Wall clock, epoch ms, for the landing page's ages. */
  readonly wallClock?: () => number;
  /** How long rendered self-metrics may be reused by later scrapes; default 1000 ms, 0 for never. */
  readonly selfMetricsMaxAgeMs?: number;
  /** Reloads the config (POST /-/reload); absent: the lifecycle API is off and the route answers 403. */
  readonly reload?: () => Promise<ReloadResult>;
  /** The status page's model (GET /status); absent: the route does not exist. */
  readonly statusModel?: () => StatusModel;
  /**
   * Masks secrets in every page and answer but `/metrics` (landing and status pages, reload
   * and readiness answers): they show upstream errors, whose bodies may echo a token.
   */
  readonly redact?: (text: string) => string;
  /** Where the metrics are served (`--web.telemetry-path`); default `/metrics`. */
  readonly metricsPath?: string;
}

/** The known paths and the methods each allows; any other method gets 405 with `Allow`. */
const ROUTES: Readonly<Record<string, string>> = {
  '/': 'GET, HEAD',
  '/status': 'GET, HEAD',
  '/-/healthy': 'GET, HEAD',
  '/-/ready': 'GET, HEAD',
  '/-/reload': 'POST, PUT',
};

/**
 * Why the exporter is not ready: waiting, or the errors of the collectors that have never
 * completed a good poll (a wrong token shows as "authentication failed (HTTP 401)").
 */
function notReadyReason(status: readonly CollectorStatus[]): string {
  const failing = status.filter((s) => s.lastSuccessMs === undefined && s.lastError !== undefined);
  if (failing.length === 0) return 'waiting for the first complete poll';
  const errors = failing.map((s) => `${s.name}: ${s.lastError}`).join('; ');
  return `the first complete poll has not succeeded: ${errors}`;
}

/**
 * The answer of `/-/ready`. Ready (200) once every collector has completed a poll: the summary's
 * first poll at the request ceiling brings the shortest window first (collectors/summary/first-poll.ts),
 * so the exporter is ready as soon as that window's station summaries are published, and the second
 * line says which windows are complete and which are still pending ("windows complete: 15m;
 * pending: 1h, 24h"). Waiting for every window would keep a large plant unready for minutes while
 * its shortest window is already served.
 */
export function readinessText(deps: Pick<AppDeps, 'ready' | 'status' | 'windows'>): string {
  const first = deps.ready() ? 'Ready' : `Not ready: ${notReadyReason(deps.status())}`;
  const windows = windowProgressText(deps.windows?.() ?? []);
  return windows === '' ? `${first}\n` : `${first}\n${windows}\n`;
}

/**
 * Middleware that masks secrets in the text and JSON pages. The metrics path is left alone: it
 * serves pre-rendered bytes, and holds no error text.
 */
function maskPages(opts: {
  readonly redact: (text: string) => string;
  readonly metricsPath: string;
}): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.req.path === opts.metricsPath || c.res.body === null) return;
    const type = c.res.headers.get('content-type') ?? '';
    if (!/^(text\/|application\/json)/.test(type)) return;
    const masked = opts.redact(await c.res.text());
    c.res = new Response(masked, { status: c.res.status, headers: c.res.headers });
    c.res.headers.delete('content-length');
  };
}

/** Creates the Hono app: `/metrics`, `/`, `/status`, `/-/healthy`, `/-/ready`, `/-/reload`. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const tailOf = createTailMemo({
    cache: deps.cache,
    registry: deps.registry,
    maxAgeMs: deps.selfMetricsMaxAgeMs ?? 1000,
  });

  const metricsPath = deps.metricsPath ?? '/metrics';
  const routes: Readonly<Record<string, string>> = { [metricsPath]: 'GET, HEAD', ...ROUTES };
  if (deps.redact) app.use(maskPages({ redact: deps.redact, metricsPath }));

  app.get(metricsPath, async (c) => {
    const { format, gzip } = negotiate(c.req.header('accept'), c.req.header('accept-encoding'));
    deps.self.recordScrape(format, { gzip });
    const res = await deps.cache.respond(format, await tailOf(format), { gzip });
    const headers: Record<string, string> = {
      'content-type': res.contentType,
      vary: 'Accept, Accept-Encoding',
      'cache-control': 'no-store',
    };
    if (res.contentEncoding) headers['content-encoding'] = res.contentEncoding;
    // Under @hono/node-server, write the cached chunks straight to the socket: going through
    // a web Response would copy a body of tens of megabytes on every scrape.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    // Not for HEAD: Hono answers it with a copy of the GET response, which would lose the already-sent mark.
    if (outgoing && c.req.method === 'GET') {
      outgoing.writeHead(200, { ...headers, 'content-length': String(res.length) });
      // Piece by piece, as the client reads: see writeBody. It goes on after the handler returns.
      void writeBody(outgoing, res.chunks);
      return RESPONSE_ALREADY_SENT;
    }
    const body = res.body;
    return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), 200, headers);
  });

  app.get('/-/healthy', (c) => c.text('OK\n'));

  app.get('/-/ready', (c) => {
    const text = readinessText(deps);
    return deps.ready() ? c.text(text) : c.text(text, 503);
  });

  const reload = deps.reload;
  // PUT as well as POST, as Prometheus accepts both.
  app.on(['POST', 'PUT'], '/-/reload', async (c) => {
    if (!reload)
      return c.text(`${LIFECYCLE_DISABLED} Start with --web.enable-lifecycle to use /-/reload.\n`, 403);
    const result = await reload();
    if (result.ok) return c.text('Reloaded\n');
    // Nothing to reload is the client's mistake, not a server failure.
    if (result.noConfig) return c.text(`Cannot reload: ${result.error}\n`, 409);
    return c.text(`Reload failed: ${result.error}\n`, 500);
  });

  const statusModel = deps.statusModel;
  if (statusModel) {
    app.get('/status', (c) => c.html(statusPage(statusModel()), 200, { 'cache-control': 'no-store' }));
  }

  app.get('/', (c) =>
    c.html(
      landingPage({
        version: deps.version,
        upstream: deps.upstream,
        status: deps.status(),
        ready: deps.ready(),
        now: (deps.wallClock ?? Date.now)(),
        metricsPath,
      }),
    ),
  );

  for (const [path, allow] of Object.entries(routes)) {
    app.all(path, (c) => c.text(`Method not allowed; ${path} allows ${allow}\n`, 405, { allow }));
  }
  app.notFound((c) => c.text(`Not found. Try ${metricsPath}\n`, 404));
  return app;
}
