/** The HTTP face of the exporter; it knows nothing of the upstream. */
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
  /** `noConfig`: no config file to reload (demo mode), a client error. */
  | { readonly ok: false; readonly error: string; readonly noConfig?: true };

/** What the server needs from the rest of the exporter. */
export interface AppDeps {
  readonly cache: ExpositionCache;
  readonly registry: Registry;
  readonly self: SelfMetrics;
  readonly version: string;
  readonly status: () => readonly CollectorStatus[];
  readonly ready: () => boolean;
  /** Each summary window's progress, shortest first, for `/-/ready`'s second line. */
  readonly windows?: () => readonly SummaryWindowProgress[];
  /** Shown on the landing page (no credentials). */
  readonly upstream: string;
  /** Epoch ms, for the landing page's ages. */
  readonly wallClock?: () => number;
  /** POST /-/reload; absent: the lifecycle API is off (403). */
  readonly reload?: () => Promise<ReloadResult>;
  /** GET /status; absent: no such route. */
  readonly statusModel?: () => StatusModel;
  /** Masks secrets in every answer but `/metrics`: upstream errors shown may echo a token. */
  readonly redact?: (text: string) => string;
  /** `--web.telemetry-path`; default `/metrics`. */
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

/** Waiting, or the errors of the collectors that never completed a good poll. */
function notReadyReason(status: readonly CollectorStatus[]): string {
  const failing = status.filter((s) => s.lastSuccessMs === undefined && s.lastError !== undefined);
  if (failing.length === 0) return 'waiting for the first complete poll';
  const errors = failing.map((s) => `${s.name}: ${s.lastError}`).join('; ');
  return `the first complete poll has not succeeded: ${errors}`;
}

/**
 * The answer of `/-/ready`: ready once every collector completed a poll, the summary's with its
 * shortest window only (waiting for all would keep a large plant unready for minutes); a second
 * line says which windows are pending.
 */
export function readinessText(deps: Pick<AppDeps, 'ready' | 'status' | 'windows'>): string {
  const first = deps.ready() ? 'Ready' : `Not ready: ${notReadyReason(deps.status())}`;
  const windows = windowProgressText(deps.windows?.() ?? []);
  return windows === '' ? `${first}\n` : `${first}\n${windows}\n`;
}

/** Masks secrets in the text and JSON pages; the metrics path holds no error text. */
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
  const tailOf = createTailMemo({ cache: deps.cache, registry: deps.registry, maxAgeMs: 1000 });

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
    // Straight to the socket: a web Response would copy tens of megabytes per scrape. Not for
    // HEAD: Hono answers it with a copy of the GET response, losing the already-sent mark.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    if (outgoing && c.req.method === 'GET') {
      outgoing.writeHead(200, { ...headers, 'content-length': String(res.length) });
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
