/** The client against the simulator over a real socket: encoding, auth, every failure kind. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import { createClient, type UpstreamClient } from '../../src/upstream/client.ts';
import { MAX_ERROR_MESSAGE, UpstreamError } from '../../src/upstream/errors.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const TOKEN = 'sim-secret-token';
let sim: RunningSimulator;
let client: UpstreamClient;

beforeAll(async () => {
  sim = await startSimulatorServer({ seed: 11, now: () => NOW, tokens: { [TOKEN]: { sites: 'all' } } });
  client = createClient({ baseUrl: sim.url, token: () => TOKEN, timeoutMs: 300 });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

const hour = { from: new Date(NOW - 3_600_000), to: new Date(NOW) };

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  expect(String((err as Error).message)).not.toContain(TOKEN);
  return err as UpstreamError;
}

describe('client against the simulator', () => {
  it('discovers the plant and sends the bearer token and encoded query', async () => {
    const sites = await client.listSites();
    expect(sites.records.map((s) => s.id)).toEqual(sim.sim.plant.sites.map((s) => s.id));
    const ids = sim.sim.plant.stations.slice(0, 2).map((s) => s.id);
    sim.sim.clearRequests();
    await client.units({ stationIds: ids, ...hour, directions: ['input', 'output'] });
    const req = sim.sim.requests[0];
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.query.station_ids).toEqual([ids.join(',')]);
    expect(req?.query.direction).toEqual(['input', 'output']);
    expect(req?.query.from).toEqual([hour.from.toISOString()]);
  });

  it('maps every record the simulator holds for the window, and is deterministic', async () => {
    const ids = sim.sim.plant.stations.slice(0, 3).map((s) => s.id);
    const a = await client.metrics({ stationIds: ids, ...hour });
    const truth = sim.sim.metricsBetween(ids, { from: hour.from, to: hour.to });
    expect(a.records).toHaveLength(truth.length);
    expect(a.received).toBe(truth.length);
    const b = await client.metrics({ stationIds: ids, ...hour });
    expect(b.records).toEqual(a.records);
    const summary = await client.stationSummary({ stationIds: ids, ...hour });
    expect(summary.uniqueUnits).toBe(sim.sim.summaryOf(ids, hour.from, hour.to).unique_units);
  });

  it('types each failure: status with code, timeout, invalid body', async () => {
    const id = sim.sim.plant.stations[0]?.id ?? '';
    const unknown = await failure(client.getSite('0'.repeat(24)));
    expect(unknown).toMatchObject({ reason: 'status', status: 404 });
    expect(unknown.code).toBeTruthy();

    sim.sim.setScenario({ forbiddenStations: [id] });
    expect(await failure(client.stationSummary({ stationIds: [id] }))).toMatchObject({
      reason: 'status',
      status: 403,
    });
    sim.sim.setScenario({ forbiddenStations: [], errorRate: 1 });
    expect(await failure(client.listSites())).toMatchObject({ reason: 'status', status: 500 });
    sim.sim.setScenario({ errorRate: 0, hangRate: 1 });
    expect(await failure(client.listSites())).toMatchObject({ reason: 'timeout' });
    sim.sim.setScenario({ hangRate: 0, malformedRate: 1 });
    expect(await failure(client.listSites())).toMatchObject({ reason: 'invalid_body' });
    sim.sim.setScenario({ malformedRate: 0 });
  });

  it("meets the simulator's hostile answers with typed, bounded failures", async () => {
    const errors: UpstreamError[] = [];
    const c = createClient({
      baseUrl: sim.url,
      token: () => TOKEN,
      timeoutMs: 30_000,
      retry: { maxAttempts: 3, baseMs: 0, maxDelayMs: 0 },
      observer: { error: (e) => errors.push(e) },
    });
    // 1 MiB of `{}`: about 350,000 items, over the 200,000 an answer may hold.
    sim.sim.setScenario({ hostile: { kind: 'empty-objects', endpoints: ['units'], bytes: 1024 * 1024 } });
    sim.sim.clearRequests();
    expect(await failure(c.units({ ...hour }))).toMatchObject({ reason: 'too_large' });
    expect(sim.sim.requests).toHaveLength(1);
    sim.sim.setScenario({ hostile: { kind: 'corrupt-gzip', endpoints: ['units'] } });
    sim.sim.clearRequests();
    expect(await failure(c.units({ ...hour }))).toMatchObject({ reason: 'invalid_body' });
    expect(sim.sim.requests).toHaveLength(1);
    sim.sim.setScenario({ hostile: { kind: 'huge-error', endpoints: ['sites'], bytes: 4 * 1024 * 1024 } });
    const huge = await failure(c.listSites());
    expect(huge).toMatchObject({ reason: 'status', status: 500 });
    expect(huge.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
    expect(errors.every((e) => e.message.length <= MAX_ERROR_MESSAGE)).toBe(true);
    sim.sim.setScenario({ hostile: null });
    await c.close();
  });

  it('gets 401 for an unknown token, and the message does not carry it', async () => {
    const other = createClient({ baseUrl: sim.url, token: () => 'wrong-token-xyz', timeoutMs: 1000 });
    const err = await failure(other.listSites());
    expect(err).toMatchObject({ status: 401 });
    expect(err.message).not.toContain('wrong-token-xyz');
    await other.close();
  });

  it('tolerates schema drift: extra fields pass, a missing summary field is left out and counted', async () => {
    const skipped: string[] = [];
    const c = createClient({
      baseUrl: sim.url,
      token: () => TOKEN,
      timeoutMs: 1000,
      observer: { skipped: ({ endpoint, reason, count }) => skipped.push(`${endpoint}/${reason}:${count}`) },
    });
    const ids = sim.sim.plant.stations.slice(0, 2).map((s) => s.id);
    const truth = sim.sim.unitsBetween(ids, hour.from, hour.to).filter((u) => u.direction === 'output');
    sim.sim.setScenario({ drift: 'extra-field' });
    expect((await c.units({ stationIds: ids, ...hour })).records).toHaveLength(truth.length);
    sim.sim.setScenario({ drift: 'missing-field' });
    // unit_type is missing: a nullable field, so the records still map.
    expect((await c.units({ stationIds: ids, ...hour })).records).toHaveLength(truth.length);
    const summary = await c.stationSummary({ stationIds: ids, ...hour });
    sim.sim.setScenario({ drift: 'none' });
    expect(summary.retryRate).toBeUndefined();
    expect(summary.uniqueUnits).toBeTypeOf('number');
    expect(skipped).toEqual(['station_summary/missing_field:1']);
    await c.close();
  });
});
