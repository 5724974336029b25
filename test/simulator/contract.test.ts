import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ago, fixedSim, get, HOUR, NOW } from './helpers.ts';

// The contract (/work/shared/station-data-api.md) as strict schemas: every required field must be
// present with its type and nullability, and no undocumented field may appear (time_inserted is
// the one documented extra).
const id = z.string().regex(/^[0-9a-f]{24}$/);
const isoMs = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const meta = z.strictObject({
  request_id: z.string(),
  timestamp: z.iso.datetime(),
  query_duration_ms: z.number().nonnegative(),
});
const envelope = <T extends z.ZodType>(data: T) => z.strictObject({ data, message: z.string(), meta });
const common = {
  station_id: id,
  slot: z.string().nullable(),
  unit_serial: z.string().min(1),
  time_created: isoMs,
  tz: z.string().nullable(),
  mode: z.string().nullable(),
  tags: z.array(z.string()),
  time_inserted: isoMs.optional(),
};
const metric = z.strictObject({
  ...common,
  name: z.string(),
  value: z.string(),
  unit: z.string(),
  type: z.string().nullable(),
  limit_upper: z.string().nullable(),
  limit_lower: z.string().nullable(),
});
const unit = z.strictObject({
  ...common,
  unit_type: z.string().nullable(),
  direction: z.enum(['input', 'output']),
  result: z.string().nullable(),
  metadata: z.null(),
});
const summary = z.strictObject({
  unique_units: z.number(),
  total_input: z.number(),
  unique_input: z.number(),
  total_output: z.number(),
  unique_output: z.number(),
  first_pass: z.number(),
  final_pass: z.number(),
  first_pass_yield: z.number(),
  final_yield: z.number(),
  retry_rate: z.number(),
});
const named = { id, name: z.string(), description: z.string() };
const element = z.discriminatedUnion('type', [
  z.strictObject({ ...named, type: z.literal('station') }),
  z.strictObject({ ...named, type: z.literal('group'), stations: z.array(z.strictObject(named)).min(2) }),
]);
const site = z.strictObject({
  ...named,
  lines: z.array(z.strictObject({ ...named, elements: z.array(element) })),
});
const errorBody = z.strictObject({
  error: z.strictObject({ code: z.string().min(1), message: z.string().min(1), details: z.null() }),
});

describe('simulator contract: success shapes', () => {
  const { sim } = fixedSim();
  const station = sim.plant.stations[0]!.id;

  it('GET /sites returns an array of sites with lines, stations and groups', async () => {
    const res = await get(sim, '/sites');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = envelope(z.array(site)).parse(res.body);
    expect(body.data).toEqual(sim.plant.sites);
    const types = body.data.flatMap((s) => s.lines.flatMap((l) => l.elements.map((e) => e.type)));
    expect(types).toContain('station');
    expect(types).toContain('group');
  });

  it('GET /sites/{id} and /sites?id= return a one-element array', async () => {
    const target = sim.plant.sites[1]!;
    for (const path of [
      `/sites/${target.id}`,
      `/sites?id=${target.id}`,
      `/sites/${target.id.toUpperCase()}`,
    ]) {
      const body = envelope(z.array(site)).parse((await get(sim, path)).body);
      expect(body.data).toEqual([target]);
    }
  });

  it('GET /metrics returns metric records sorted by time_created', async () => {
    const res = await get(sim, `/metrics?station_ids=${station}&from=${ago(2)}&to=${ago(0)}`);
    const body = envelope(z.array(metric)).parse(res.body);
    expect(body.data.length).toBeGreaterThan(10);
    const times = body.data.map((m) => m.time_created);
    expect(times).toEqual([...times].sort());
    expect(new Set(body.data.map((m) => m.station_id))).toEqual(new Set([station]));
  });

  it('GET /units returns unit records with a null metadata', async () => {
    const res = await get(sim, `/units?station_ids=${station}&direction=input,output`);
    const body = envelope(z.array(unit)).parse(res.body);
    expect(body.data.length).toBeGreaterThan(100);
    expect(body.message).toBe('success');
    expect(Date.parse(body.meta.timestamp)).toBe(NOW);
  });

  it('GET /station/summary returns one object, not an array', async () => {
    const res = await get(sim, `/station/summary?station_ids=${station}`);
    const body = envelope(summary).parse(res.body);
    expect(Array.isArray(res.body.data)).toBe(false);
    expect(body.data.unique_output).toBeGreaterThan(0);
    expect(body.data.first_pass_yield).toBeGreaterThan(0);
    expect(body.data.first_pass_yield).toBeLessThanOrEqual(1);
  });

  it('gives every request its own request_id', async () => {
    const a = await get(sim, '/sites');
    const b = await get(sim, '/sites');
    expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
  });
});

describe('simulator contract: defaults and parameter forms', () => {
  const { sim } = fixedSim();
  const ids = sim.plant.stations.map((s) => s.id);
  const station = ids[0]!;

  it('defaults the window to the last 24 hours', async () => {
    const implicit = await get(sim, `/units?station_ids=${station}`);
    const explicit = await get(sim, `/units?station_ids=${station}&from=${ago(24)}&to=${ago(0)}`);
    expect(implicit.body.data).toEqual(explicit.body.data);
    const times = implicit.body.data.map((u: { time_created: string }) => Date.parse(u.time_created));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - 24 * HOUR);
    expect(Math.min(...times)).toBeLessThan(NOW - 23 * HOUR);
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
  });

  it('defaults direction to output only', async () => {
    const res = await get(sim, `/units?station_ids=${station}`);
    expect(new Set(res.body.data.map((u: { direction: string }) => u.direction))).toEqual(
      new Set(['output']),
    );
    const both = await get(sim, `/units?station_ids=${station}&direction=input&direction=output`);
    expect(new Set(both.body.data.map((u: { direction: string }) => u.direction))).toEqual(
      new Set(['input', 'output']),
    );
  });

  it('covers every accessible station when station_ids is omitted', async () => {
    const res = await get(sim, `/units?from=${ago(1)}`);
    const seen = new Set(res.body.data.map((u: { station_id: string }) => u.station_id));
    expect(seen.size).toBe(ids.length);
  });

  it('accepts repeated and comma-separated arrays alike', async () => {
    const [a, b] = sim.plant.measurementNames;
    const window = `from=${ago(3)}&to=${ago(1)}`;
    const repeated = await get(sim, `/metrics?names=${a}&names=${b}&${window}`);
    const comma = await get(sim, `/metrics?names=${a},${b}&${window}`);
    expect(repeated.body.data.length).toBeGreaterThan(0);
    expect(comma.body.data).toEqual(repeated.body.data);
    expect(new Set(comma.body.data.map((m: { name: string }) => m.name))).toEqual(new Set([a, b]));
    const stationsRepeated = await get(sim, `/units?station_ids=${ids[0]}&station_ids=${ids[1]}&${window}`);
    const stationsComma = await get(sim, `/units?station_ids=${ids[0]},${ids[1]}&${window}`);
    expect(stationsComma.body.data).toEqual(stationsRepeated.body.data);
  });

  it('filters units by type and serial_number', async () => {
    const all = (await get(sim, `/units?from=${ago(2)}`)).body.data as Array<Record<string, string>>;
    const type = all.find((u) => u.unit_type)!.unit_type!;
    const byType = (await get(sim, `/units?from=${ago(2)}&type=${encodeURIComponent(type)}`)).body.data;
    expect(byType.length).toBe(all.filter((u) => u.unit_type === type).length);
    expect(byType.length).toBeLessThan(all.length);
    const serial = all[0]!.unit_serial!;
    const bySerial = (await get(sim, `/units?from=${ago(2)}&serial_number=${serial}&direction=input,output`))
      .body.data as Array<Record<string, string>>;
    expect(bySerial.length).toBeGreaterThanOrEqual(2);
    expect(bySerial.every((u) => u.unit_serial === serial)).toBe(true);
  });
});

describe('simulator contract: errors', () => {
  const { sim } = fixedSim({
    tokens: { 'demo-token': { sites: 'all' }, 'one-site': { sites: [] } },
  });
  const station = sim.plant.stations[0]!.id;
  const unknownId = 'ffffffffffffffffffffffff';

  const cases: Array<[string, string, number, string | null]> = [
    ['no token', '/sites', 401, null],
    ['unknown token', '/sites', 401, 'not-a-token'],
    ['malformed station id', '/units?station_ids=xyz', 400, 'demo-token'],
    ['malformed site id', '/sites/1234', 400, 'demo-token'],
    ['malformed site id in query', '/sites?id=zzzzzzzzzzzzzzzzzzzzzzzz', 400, 'demo-token'],
    ['malformed from', '/units?from=yesterday', 400, 'demo-token'],
    ['malformed to', '/metrics?to=2026-13-45', 400, 'demo-token'],
    ['from after to', `/units?from=${ago(1)}&to=${ago(2)}`, 400, 'demo-token'],
    ['summary without station_ids', '/station/summary', 400, 'demo-token'],
    ['unknown direction', '/units?direction=sideways', 400, 'demo-token'],
    ['unknown site', `/sites/${unknownId}`, 404, 'demo-token'],
    ['unknown station', `/metrics?station_ids=${unknownId}`, 404, 'demo-token'],
    ['unknown station on summary', `/station/summary?station_ids=${station},${unknownId}`, 404, 'demo-token'],
    ['unknown path', '/nope', 404, 'demo-token'],
    ['station outside the token scope', `/units?station_ids=${station}`, 403, 'one-site'],
    ['site outside the token scope', `/sites/${sim.plant.sites[0]!.id}`, 403, 'one-site'],
  ];

  it.each(cases)('%s gives %s', async (_name, path, status, token) => {
    const res = await get(sim, path, token);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = errorBody.parse(res.body);
    if (token) expect(body.error.message).not.toContain(token);
  });

  it('never echoes a rejected token', async () => {
    const res = await get(sim, '/sites', 'super-secret-value');
    expect(res.text).not.toContain('super-secret-value');
  });
});

describe('simulator contract: token scope', () => {
  const base = fixedSim().sim;
  const [first, second] = base.plant.sites;
  const { sim } = fixedSim({ tokens: { limited: { sites: [second!.id] }, all: { sites: 'all' } } });
  const inFirst = sim.plant.stations.find((s) => s.siteId === first!.id)!.id;
  const inSecond = sim.plant.stations.filter((s) => s.siteId === second!.id).map((s) => s.id);

  it('lists only accessible sites', async () => {
    expect((await get(sim, '/sites', 'limited')).body.data).toEqual([second]);
    expect((await get(sim, '/sites', 'all')).body.data).toHaveLength(2);
  });

  it('limits the default station set to accessible sites', async () => {
    const res = await get(sim, `/units?from=${ago(1)}`, 'limited');
    const seen = new Set(res.body.data.map((u: { station_id: string }) => u.station_id));
    expect(seen).toEqual(new Set(inSecond));
  });

  it('answers 403 for a station of another site, 200 inside the scope', async () => {
    expect((await get(sim, `/metrics?station_ids=${inFirst}`, 'limited')).status).toBe(403);
    expect((await get(sim, `/station/summary?station_ids=${inFirst}`, 'limited')).status).toBe(403);
    expect((await get(sim, `/station/summary?station_ids=${inSecond[0]}`, 'limited')).status).toBe(200);
  });
});
