import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO, HOSTILE_BYTES, patchScenario } from '../../src/simulator/faults.ts';
import { fixedSim, get } from './helpers.ts';

describe('hostile answers', () => {
  it('answers the chosen endpoints with millions of empty objects, the others as usual', async () => {
    const { sim } = fixedSim();
    sim.setScenario({ hostile: { kind: 'empty-objects', endpoints: ['units'], bytes: 3000 } });
    const units = await get(sim, '/units');
    expect(units.status).toBe(200);
    expect(units.body.data).toHaveLength(1000);
    expect(units.body.data[0]).toEqual({});
    const sites = await get(sim, '/sites');
    expect(sites.body.data.length).toBeGreaterThan(0);
    expect(sites.body.data[0]).toHaveProperty('id');
  });

  it('answers 500 with an error message of the given size', async () => {
    const { sim } = fixedSim();
    sim.setScenario({ hostile: { kind: 'huge-error', endpoints: ['sites'], bytes: 100_000 } });
    const res = await get(sim, '/sites');
    expect(res.status).toBe(500);
    expect(res.body.error.message).toHaveLength(100_000);
  });

  it('answers 200 marked gzip with a body that does not decompress', async () => {
    const { sim } = fixedSim();
    sim.setScenario({ hostile: { kind: 'corrupt-gzip', endpoints: ['metrics'] } });
    const res = await sim.app.request('/metrics', { headers: { authorization: 'Bearer demo-token' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = Buffer.from(await res.arrayBuffer());
    expect(() => gunzipSync(body)).toThrow();
  });

  it('is off by default, 16 MiB when no size is given, and strict about its fields', () => {
    expect(DEFAULT_SCENARIO.hostile).toBeNull();
    expect(HOSTILE_BYTES).toBe(16 * 1024 * 1024);
    expect(() =>
      patchScenario(DEFAULT_SCENARIO, { hostile: { kind: 'nope', endpoints: ['units'] } as never }),
    ).toThrow();
    expect(() =>
      patchScenario(DEFAULT_SCENARIO, { hostile: { kind: 'huge-error', endpoints: [] } }),
    ).toThrow();
  });
});

describe('refused tokens', () => {
  it('answers 401 to a token it accepted a moment before, and accepts it again when the scenario ends', async () => {
    const { sim } = fixedSim();
    expect((await get(sim, '/sites')).status).toBe(200);
    sim.setScenario({ refuseTokens: true });
    const refused = await get(sim, '/sites');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    sim.setScenario({ refuseTokens: false });
    expect((await get(sim, '/sites')).status).toBe(200);
  });
});
