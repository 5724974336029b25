import { afterEach, describe, expect, it, vi } from 'vitest';
import { LARGE_BODY_BYTES, type Simulator } from '../../src/simulator/index.ts';
import { ago, fixedSim, get } from './helpers.ts';

async function statuses(sim: Simulator, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await get(sim, '/sites')).status);
  return out;
}

describe('fault scenarios', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers about errorRate of requests with 500 and the error body, in a seeded sequence', async () => {
    const a = fixedSim({ scenario: { errorRate: 0.3 } }).sim;
    const seq = await statuses(a, 200);
    const share = seq.filter((s) => s === 500).length / seq.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.4);
    expect(await statuses(fixedSim({ scenario: { errorRate: 0.3 } }).sim, 200)).toEqual(seq);
    expect(await statuses(fixedSim({ seed: 1, scenario: { errorRate: 0.3 } }).sim, 200)).not.toEqual(seq);
    const failed = await get(fixedSim({ scenario: { errorRate: 1 } }).sim, '/sites');
    expect(failed.body).toEqual({
      error: { code: 'INTERNAL_ERROR', message: expect.any(String), details: null },
    });
  });

  it('checks the token before injecting faults', async () => {
    const { sim } = fixedSim({ scenario: { errorRate: 1 } });
    expect((await get(sim, '/sites', null)).status).toBe(401);
  });

  it('sends truncated JSON with status 200 under malformedRate', async () => {
    const { sim } = fixedSim({ scenario: { malformedRate: 1 } });
    const res = await get(sim, `/units?from=${ago(1)}`);
    expect(res.status).toBe(200);
    expect(res.text.startsWith('{"data":[')).toBe(true);
    expect(() => JSON.parse(res.text)).toThrow();
  });

  it('drops a field under missing-field drift and adds fields under extra-field drift', async () => {
    const { sim } = fixedSim({ scenario: { drift: 'missing-field' } });
    const station = sim.plant.stations[0]!.id;
    const metrics = (await get(sim, `/metrics?from=${ago(1)}`)).body.data;
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.every((m: object) => !('type' in m))).toBe(true);
    expect((await get(sim, `/units?from=${ago(1)}`)).body.data[0]).not.toHaveProperty('unit_type');
    expect((await get(sim, `/station/summary?station_ids=${station}`)).body.data).not.toHaveProperty(
      'retry_rate',
    );
    expect((await get(sim, '/sites')).body.data[0].lines[0].elements[0]).not.toHaveProperty('description');
    sim.setScenario({ drift: 'extra-field' });
    const extra = await get(sim, `/units?from=${ago(1)}`);
    expect(extra.body.api_version).toBeDefined();
    expect(extra.body.data[0]).toHaveProperty('ingest_source');
    expect(extra.body.data[0]).toHaveProperty('unit_type');
  });

  it('forbids listed stations: 403 when named, left out of the default set, still in /sites', async () => {
    const { sim } = fixedSim();
    const [denied, allowed] = sim.plant.stations.map((s) => s.id);
    sim.setScenario({ forbiddenStations: [denied!.toUpperCase()] });
    expect((await get(sim, `/metrics?station_ids=${denied}`)).status).toBe(403);
    expect((await get(sim, `/station/summary?station_ids=${allowed},${denied}`)).status).toBe(403);
    expect((await get(sim, `/metrics?station_ids=${allowed}`)).status).toBe(200);
    const all = (await get(sim, `/units?from=${ago(2)}`)).body.data as Array<{ station_id: string }>;
    expect(all.some((u) => u.station_id === denied)).toBe(false);
    expect(JSON.stringify((await get(sim, '/sites')).body.data)).toContain(denied);
  });

  it('pads responses to several MiB under large, keeping the data', async () => {
    const { sim } = fixedSim();
    const station = sim.plant.stations[0]!.id;
    const normal = await get(sim, `/units?station_ids=${station}&from=${ago(1)}`);
    sim.setScenario({ large: true });
    const large = await get(sim, `/units?station_ids=${station}&from=${ago(1)}`);
    expect(large.text.length).toBeGreaterThan(LARGE_BODY_BYTES);
    expect(large.body.data.map(({ debug_trace, ...rest }: Record<string, unknown>) => rest)).toEqual(
      normal.body.data,
    );
  });

  it('hangs until the client aborts, then records 499', async () => {
    const { sim } = fixedSim({ scenario: { hangRate: 1 } });
    const controller = new AbortController();
    const pending = sim.app.request('/sites', {
      headers: { authorization: 'Bearer demo-token' },
      signal: controller.signal,
    });
    let settled = false;
    void Promise.resolve(pending).then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(sim.requests.at(-1)!.status).toBe(0);
    controller.abort();
    expect((await pending).status).toBe(499);
    expect(sim.requests.at(-1)!.status).toBe(499);
  });

  it('delays answers by latency plus seeded jitter', async () => {
    vi.useFakeTimers();
    const { sim } = fixedSim({ scenario: { latencyMs: 200, jitterMs: 50 } });
    let done = false;
    const pending = Promise.resolve(
      sim.app.request('/sites', { headers: { authorization: 'Bearer demo-token' } }),
    ).then((r) => {
      done = true;
      return r;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(51);
    expect(done).toBe(true);
    expect((await pending).status).toBe(200);
  });

  it('rejects inconsistent scenarios', () => {
    const { sim } = fixedSim();
    expect(() => sim.setScenario({ errorRate: 0.7, hangRate: 0.5 })).toThrow(/exceed 1/);
    expect(() => sim.setScenario({ errorRate: 2 })).toThrow();
    expect(sim.scenario().errorRate).toBe(0);
  });
});

describe('request recording and /_sim controls', () => {
  it('records method, path, raw and parsed query, lower-case headers and status', async () => {
    const { sim } = fixedSim();
    await sim.app.request('/metrics?names=a&names=b,c&from=2026-11-22T01:00:00Z', {
      headers: { Authorization: 'Bearer demo-token', 'X-Trace': 't1' },
    });
    await get(sim, '/sites', null);
    expect(sim.requests).toHaveLength(2);
    const [first, second] = sim.requests;
    expect(first).toMatchObject({
      method: 'GET',
      path: '/metrics',
      rawQuery: 'names=a&names=b,c&from=2026-11-22T01:00:00Z',
      query: { names: ['a', 'b,c'], from: ['2026-11-22T01:00:00Z'] },
      headers: { authorization: 'Bearer demo-token', 'x-trace': 't1' },
      status: 200,
    });
    expect(second!.status).toBe(401);
    sim.clearRequests();
    expect(sim.requests).toHaveLength(0);
  });

  it('changes the scenario and lists requests over HTTP without auth, and is not recorded itself', async () => {
    const { sim } = fixedSim();
    const post = await sim.app.request('/_sim/scenario', {
      method: 'POST',
      body: JSON.stringify({ errorRate: 1 }),
      headers: { 'content-type': 'application/json' },
    });
    expect(post.status).toBe(200);
    expect(sim.scenario().errorRate).toBe(1);
    expect((await get(sim, '/sites')).status).toBe(500);
    const bad = await sim.app.request('/_sim/scenario', { method: 'POST', body: '{"nope":1}' });
    expect(bad.status).toBe(400);
    const listed = (await (await sim.app.request('/_sim/requests')).json()) as unknown[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ path: '/sites', status: 500 });
    expect((await sim.app.request('/_sim/requests', { method: 'DELETE' })).status).toBe(204);
    expect(sim.requests).toHaveLength(0);
  });
});
