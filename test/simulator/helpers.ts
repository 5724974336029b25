import { createSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.ts';

/** A fixed clock for every simulator test: 2026-11-22T03:00:00Z. */
export const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);
export const HOUR = 3_600_000;

/** A simulator on a fixed (but movable) clock. */
export function fixedSim(opts: SimulatorOptions = {}): { sim: Simulator; clock: { now: number } } {
  const clock = { now: NOW };
  return { sim: createSimulator({ now: () => clock.now, ...opts }), clock };
}

/** GET through `app.request()` with the demo token (or the given one, or none with `null`). */
export async function get(sim: Simulator, path: string, token: string | null = 'demo-token') {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const res = await sim.app.request(path, { headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON; the contract test validates shapes with zod.
  return { status: res.status, text, body: body as any, headers: res.headers };
}

/** ISO string of NOW minus `hours`. */
export function ago(hours: number): string {
  return new Date(NOW - hours * HOUR).toISOString();
}
