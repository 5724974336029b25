import { z } from 'zod';

const rate = z.number().min(0).max(1);

// The only definition of a scenario: `Scenario` is its type with every field present.
const scenarioPatchSchema = z.strictObject({
  latencyMs: z.number().min(0).optional(),
  jitterMs: z.number().min(0).optional(),
  /** Share of API requests answered with 500. */
  errorRate: rate.optional(),
  /** Share of API requests that never answer until the client aborts. */
  hangRate: rate.optional(),
  /** Share of API requests answered 200 with a truncated JSON body. */
  malformedRate: rate.optional(),
  drift: z.enum(['none', 'missing-field', 'extra-field']).optional(),
  /** Station ids whose data the token may not read (403), although /sites lists them. */
  forbiddenStations: z.array(z.string()).optional(),
  /** Pad every API response to several MiB. */
  large: z.boolean().optional(),
  /** Drive one line's yield down; null: every line as generated (or as the process scenario has it). */
  yieldDrop: z
    .strictObject({
      lineId: z.string().regex(/^[0-9a-fA-F]{24}$/),
      failRatio: rate,
      fromMs: z.number().int().min(0).optional(),
      toMs: z.number().int().min(0).optional(),
    })
    .nullable()
    .optional(),
  /**
   * Answer every request of some endpoints with a hostile body; null: none. `empty-objects` is a
   * 200 whose `data` is `{},{},...` of about `bytes` (default 16 MiB); `huge-error` a 500 whose
   * `error.message` is `bytes` long; `corrupt-gzip` a 200 marked gzip that does not decompress.
   */
  hostile: z
    .strictObject({
      kind: z.enum(['empty-objects', 'huge-error', 'corrupt-gzip']),
      endpoints: z.array(z.enum(['metrics', 'units', 'summary', 'sites'])).min(1),
      bytes: z
        .int()
        .min(1)
        .max(512 * 1024 * 1024)
        .optional(),
    })
    .nullable()
    .optional(),
  /** Refuse every bearer token with 401, as an upstream that revoked the exporter's token. */
  refuseTokens: z.boolean().optional(),
});

/** Fault injection settings; all off by default. */
export type Scenario = Required<{ [K in keyof ScenarioPatch]: Exclude<ScenarioPatch[K], undefined> }>;
type ScenarioPatch = z.infer<typeof scenarioPatchSchema>;
/** A hostile answer, for the exporter's limits (see `Scenario.hostile`). */
export type HostileAnswer = NonNullable<Scenario['hostile']>;

/** No faults: instant, healthy, faithful answers. */
export const DEFAULT_SCENARIO: Scenario = {
  latencyMs: 0,
  jitterMs: 0,
  errorRate: 0,
  hangRate: 0,
  malformedRate: 0,
  drift: 'none',
  forbiddenStations: [],
  large: false,
  yieldDrop: null,
  hostile: null,
  refuseTokens: false,
};

/** Applies a patch; rejects rates whose sum exceeds 1, since one draw decides among them. */
export function patchScenario(current: Scenario, patch: Partial<Scenario>): Scenario {
  const parsed = scenarioPatchSchema.parse(patch);
  const next: Scenario = { ...current };
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== undefined) Object.assign(next, { [key]: value });
  }
  next.forbiddenStations = next.forbiddenStations.map((id) => id.toLowerCase());
  if (next.errorRate + next.hangRate + next.malformedRate > 1) {
    throw new Error('errorRate + hangRate + malformedRate must not exceed 1');
  }
  return next;
}

/** What one request suffers. */
export type Fault = 'none' | 'hang' | 'error' | 'malformed';

/** Maps one uniform draw to a fault; the rates partition [0, 1). */
export function faultFor(s: Scenario, u: number): Fault {
  if (u < s.hangRate) return 'hang';
  if (u < s.hangRate + s.errorRate) return 'error';
  if (u < s.hangRate + s.errorRate + s.malformedRate) return 'malformed';
  return 'none';
}

/** A hang ends when the client aborts, or after this cap so no timer lives forever. */
export const HANG_CAP_MS = 10 * 60_000;

/** Resolves after `ms`, or early (with true) when the signal aborts. Timers never keep the process alive. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    if (ms <= 0) return resolve(false);
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    timer.unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Minimum size of a response under the `large` scenario. */
export const LARGE_BODY_BYTES = 8 * 1024 * 1024;
const RECORD_PAD = 'x'.repeat(1024);

type Json = Record<string, unknown>;

const MISSING: Record<string, string> = { metrics: 'type', units: 'unit_type', summary: 'retry_rate' };

function mapData(data: unknown, fn: (item: Json) => void): void {
  if (Array.isArray(data)) for (const item of data) fn(item as Json);
  else if (data && typeof data === 'object') fn(data as Json);
}

/** Applies `drift` and `large` to an envelope in place; `kind` is the endpoint family. */
export function distort(envelope: Json, kind: 'metrics' | 'units' | 'summary' | 'sites', s: Scenario): void {
  if (s.drift === 'missing-field') {
    if (kind === 'sites') {
      mapData(envelope.data, (site) => {
        for (const line of site.lines as Json[])
          for (const el of line.elements as Json[]) delete el.description;
      });
    } else {
      const field = MISSING[kind]!;
      mapData(envelope.data, (rec) => delete rec[field]);
    }
  }
  if (s.drift === 'extra-field') {
    envelope.api_version = '1.1.0';
    mapData(envelope.data, (rec) => {
      rec.ingest_source = 'edge-gateway';
      rec.quality = { flags: [], score: 1 };
    });
  }
  if (s.large) {
    mapData(envelope.data, (rec) => {
      rec.debug_trace = RECORD_PAD;
    });
    const meta = (envelope.meta ?? {}) as Json;
    meta.debug_padding = 'x'.repeat(LARGE_BODY_BYTES);
    envelope.meta = meta;
  }
}

/** A body that starts like the real one but is not valid JSON. */
export function truncateJson(text: string): string {
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

/** Size of a hostile answer's hostile part when the scenario does not say. */
export const HOSTILE_BYTES = 16 * 1024 * 1024;

/** The hostile answer for a request to `kind`, when the scenario has one for it. */
export function hostileAnswer(
  s: Scenario,
  kind: 'metrics' | 'units' | 'summary' | 'sites',
): Response | undefined {
  const h = s.hostile;
  if (!h?.endpoints.includes(kind)) return undefined;
  return hostileResponse(h);
}

/** Builds the body of a {@link HostileAnswer}: big ones in one string, not item by item. */
function hostileResponse(h: HostileAnswer): Response {
  const bytes = h.bytes ?? HOSTILE_BYTES;
  const json = { 'content-type': 'application/json' };
  if (h.kind === 'empty-objects') {
    const n = Math.max(1, Math.floor(bytes / 3));
    return new Response(`{"data":[${'{},'.repeat(n - 1)}{}],"message":"success"}`, {
      status: 200,
      headers: json,
    });
  }
  if (h.kind === 'huge-error') {
    const message = 'x'.repeat(bytes);
    return new Response(`{"error":{"code":"INTERNAL_ERROR","message":"${message}"}}`, {
      status: 500,
      headers: json,
    });
  }
  // A gzip header followed by bytes that are no deflate stream.
  const corrupt = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]),
    Buffer.alloc(Math.min(bytes, 4096), 0xff),
  ]);
  return new Response(corrupt, { status: 200, headers: { ...json, 'content-encoding': 'gzip' } });
}
