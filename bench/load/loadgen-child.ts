/**
 * A bounded HTTP load generator, run as a child process so that reading the responses
 * does not compete with the servers under test for their event loop. For each server,
 * `connections` keep-alive connections each keep one GET in flight; the servers take turns
 * in rounds (A B, B A, A B, ...), and each one's requests and time add up over its turns.
 * The results go back over IPC, one per server, in the order of `urls`. Before each server's
 * warm-up and each turn, a `turn` message names the server (its index in `urls`), so that a
 * parent serving several of them can tell whose turn an event-loop block fell in.
 */
import { Pool } from 'undici';
import type { LoadResult, LoadSpec } from '../shared/protocol.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;

/** One server's pool and what was measured against it so far. */
interface Target {
  readonly path: string;
  readonly pool: Pool;
  readonly latencies: number[];
  bytes: number;
  errors: number;
  elapsedMs: number;
  readonly roundRates: number[];
}

function target(u: string): Target {
  const url = new URL(u);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  return { path: url.pathname, pool, latencies: [], bytes: 0, errors: 0, elapsedMs: 0, roundRates: [] };
}

/** One GET, body read to the end; returns the body size, or -1 on any failure. */
async function fetchOnce(t: Target): Promise<number> {
  try {
    const res = await t.pool.request({ method: 'GET', path: t.path, headers: spec.headers });
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    return res.statusCode === 200 ? bytes : -1;
  } catch {
    return -1;
  }
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One turn of load against one server. */
async function turn(t: Target, ms: number): Promise<void> {
  const started = performance.now();
  const before = t.latencies.length;
  const deadline = started + ms;
  const worker = async () => {
    while (performance.now() < deadline && t.latencies.length < spec.maxRequests) {
      const t0 = performance.now();
      const n = await fetchOnce(t);
      t.latencies.push(performance.now() - t0);
      if (n < 0) t.errors++;
      else t.bytes += n;
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
  const elapsed = performance.now() - started;
  t.elapsedMs += elapsed;
  t.roundRates.push(((t.latencies.length - before) * 1000) / elapsed);
}

function result(t: Target): LoadResult {
  const latencies = [...t.latencies].sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors: t.errors,
    bytes: t.bytes,
    elapsedMs: t.elapsedMs,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? 0,
    },
    roundRates: t.roundRates,
  };
}

/** Tells the parent which server's turn begins. */
function announce(index: number): void {
  process.send?.({ type: 'turn', target: index });
}

async function run(): Promise<LoadResult[]> {
  const targets = spec.urls.map(target);
  for (const [index, t] of targets.entries()) {
    announce(index);
    const until = performance.now() + (spec.warmupMs ?? 0);
    await Promise.all(
      Array.from({ length: spec.connections }, async () => {
        for (let i = 0; i < spec.warmupRequests || performance.now() < until; i++) await fetchOnce(t);
      }),
    );
  }
  const rounds = Math.max(1, spec.rounds);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      announce(targets.indexOf(t));
      await turn(t, spec.durationMs / rounds);
    }
  }
  const results = targets.map(result);
  await Promise.all(targets.map((t) => t.pool.close()));
  return results;
}

const results = await run();
process.send?.({ type: 'load', results });
process.disconnect?.();
