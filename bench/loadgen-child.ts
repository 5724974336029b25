/**
 * A bounded HTTP load generator, run as a child process so that reading the responses
 * does not compete with the server under test for its event loop. `connections`
 * keep-alive connections each keep one GET in flight until the time or the request budget
 * is spent; the result goes back over IPC.
 */
import { Pool } from 'undici';
import type { LoadResult, LoadSpec } from './protocol.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const url = new URL(spec.url);
const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });

/** One GET, body read to the end; returns the body size, or -1 on any failure. */
async function fetchOnce(): Promise<number> {
  try {
    const res = await pool.request({ method: 'GET', path: url.pathname, headers: spec.headers });
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

async function run(): Promise<LoadResult> {
  const warm = Array.from({ length: spec.connections }, async () => {
    for (let i = 0; i < spec.warmupRequests; i++) await fetchOnce();
  });
  await Promise.all(warm);
  const latencies: number[] = [];
  let bytes = 0;
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + spec.durationMs;
  const worker = async () => {
    while (performance.now() < deadline && issued < spec.maxRequests) {
      issued++;
      const t0 = performance.now();
      const n = await fetchOnce();
      latencies.push(performance.now() - t0);
      if (n < 0) errors++;
      else bytes += n;
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    bytes,
    elapsedMs,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? 0,
    },
  };
}

const result = await run();
await pool.close();
process.send?.(result);
process.disconnect?.();
