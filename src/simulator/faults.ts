import { z } from 'zod';
import type { Scenario } from './types.ts';

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
};

const rate = z.number().min(0).max(1);

/** A strict partial scenario, as accepted by `POST /_sim/scenario`. */
export const scenarioPatchSchema = z.strictObject({
  latencyMs: z.number().min(0).optional(),
  jitterMs: z.number().min(0).optional(),
  errorRate: rate.optional(),
  hangRate: rate.optional(),
  malformedRate: rate.optional(),
  drift: z.enum(['none', 'missing-field', 'extra-field']).optional(),
  forbiddenStations: z.array(z.string()).optional(),
  large: z.boolean().optional(),
  yieldDrop: z
    .strictObject({
      lineId: z.string().regex(/^[0-9a-fA-F]{24}$/),
      failRatio: rate,
      fromMs: z.number().int().min(0).optional(),
      toMs: z.number().int().min(0).optional(),
    })
    .nullable()
    .optional(),
});

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
