import type { Context } from 'hono';
import { Hono } from 'hono';
import { authenticate } from './access.ts';
import {
  distort,
  type Fault,
  faultFor,
  HANG_CAP_MS,
  hostileAnswer,
  patchScenario,
  sleep,
  truncateJson,
} from './faults.ts';
import { ApiError, errorBody } from './params.ts';
import { Purpose, uniform } from './random.ts';
import { metricsRoute, type RouteInput, sitesRoute, summaryRoute, unitsRoute } from './routes.ts';
import type { SimState } from './state.ts';
import type { RecordedRequest } from './types.ts';

type Kind = 'metrics' | 'units' | 'summary' | 'sites';

/** Status recorded when the client gave up before the simulator answered (nginx's convention). */
const CLIENT_CLOSED = 499;
const JSON_TYPE = { 'content-type': 'application/json' };

function record(state: SimState, c: Context): RecordedRequest {
  const url = new URL(c.req.url);
  const query: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) query[k] = [...(query[k] ?? []), v];
  const rec: RecordedRequest = {
    method: c.req.method,
    path: url.pathname,
    rawQuery: url.search.replace(/^\?/, ''),
    query,
    headers: Object.fromEntries(c.req.raw.headers),
    status: 0,
    receivedAt: state.now(),
  };
  state.requests.push(rec);
  return rec;
}

function errorResponse(c: Context, err: unknown): Response {
  const api = err instanceof ApiError ? err : new ApiError(500, 'INTERNAL_ERROR', 'Internal error occurred');
  return c.json(errorBody(api), api.status);
}

function nextFault(state: SimState): { n: number; fault: Fault; delayMs: number } {
  const n = state.faultCounter++;
  const s = state.scenario;
  const delayMs = s.latencyMs + s.jitterMs * uniform(state.seed, Purpose.faultJitter, n);
  return { n, fault: faultFor(s, uniform(state.seed, Purpose.fault, n)), delayMs };
}

async function serveApi(
  c: Context,
  state: SimState,
  api: { readonly kind: Kind; readonly route: (i: RouteInput) => unknown },
) {
  const { kind, route } = api;
  const signal = c.req.raw.signal;
  const { n, fault, delayMs } = nextFault(state);
  if (await sleep(delayMs, signal)) return new Response(null, { status: CLIENT_CLOSED });
  const started = performance.now();
  try {
    const access = authenticate(state, c.req.header('authorization'));
    if (fault === 'hang') {
      const aborted = await sleep(HANG_CAP_MS, signal);
      if (aborted) return new Response(null, { status: CLIENT_CLOSED });
      throw new ApiError(500, 'INTERNAL_ERROR', 'Upstream timed out');
    }
    if (fault === 'error') throw new ApiError(500, 'INTERNAL_ERROR', 'Internal error occurred');
    const hostile = hostileAnswer(state.scenario, kind);
    if (hostile) return hostile;
    const nowMs = state.now();
    const params = new URL(c.req.url).searchParams;
    const pathId = c.req.param('id');
    const data = route({ state, access, params, nowMs, ...(pathId === undefined ? {} : { pathId }) });
    const envelope: Record<string, unknown> = {
      data,
      message: 'success',
      meta: {
        request_id: `req-${state.seed.toString(16)}-${n.toString(16).padStart(8, '0')}`,
        timestamp: new Date(nowMs).toISOString(),
        query_duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      },
    };
    distort(envelope, kind, state.scenario);
    const text = JSON.stringify(envelope);
    return c.body(fault === 'malformed' ? truncateJson(text) : text, 200, JSON_TYPE);
  } catch (err) {
    return errorResponse(c, err);
  }
}

function simRoutes(state: SimState): Hono {
  const sim = new Hono();
  sim.get('/scenario', (c) => c.json(state.scenario));
  sim.post('/scenario', async (c) => {
    try {
      state.scenario = patchScenario(state.scenario, await c.req.json());
      return c.json(state.scenario);
    } catch (err) {
      const message = err instanceof Error ? err.message : 'invalid scenario';
      return c.json(errorBody(new ApiError(400, 'BAD_REQUEST', message)), 400);
    }
  });
  sim.get('/requests', (c) => c.json(state.requests));
  sim.delete('/requests', (c) => {
    state.requests.length = 0;
    return c.body(null, 204);
  });
  return sim;
}

/** The Hono app of one simulator: the contract's endpoints plus `/_sim/*` controls. */
export function createApp(state: SimState): Hono {
  const app = new Hono();
  app.route('/_sim', simRoutes(state));
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/_sim/')) return next();
    const rec = record(state, c);
    await next();
    rec.status = c.res.status;
  });
  app.get('/sites', (c) => serveApi(c, state, { kind: 'sites', route: sitesRoute }));
  app.get('/sites/:id', (c) => serveApi(c, state, { kind: 'sites', route: sitesRoute }));
  app.get('/metrics', (c) => serveApi(c, state, { kind: 'metrics', route: metricsRoute }));
  app.get('/units', (c) => serveApi(c, state, { kind: 'units', route: unitsRoute }));
  app.get('/station/summary', (c) => serveApi(c, state, { kind: 'summary', route: summaryRoute }));
  app.notFound((c) => errorResponse(c, new ApiError(404, 'NOT_FOUND', 'Resource does not exist')));
  app.onError((err, c) => errorResponse(c, err));
  return app;
}
