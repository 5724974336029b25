import { describe, expect, it } from 'vitest';
import { TopologyJob } from '../../../src/collectors/topology/job.ts';
import { UpstreamError } from '../../../src/upstream/errors.ts';
import { hexId, plantOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';

const now = new Date('2026-03-01T12:00:00Z');

describe('topology job', () => {
  it('builds the topology and one station_info series per station from GET /sites', async () => {
    const plant = plantOf([2, 1]);
    const ctx = jobContext({}, { sites: () => [plant] });
    const out = await new TopologyJob(ctx).poll({ now });
    const ids = plant.lines.flatMap((l) => l.elements.map((e) => e.id));
    expect(out.topology.stations.map((s) => s.id)).toEqual(ids);
    expect(out.topology.lines).toHaveLength(2);
    const [info] = out.families;
    expect(info?.desc.name).toBe('station_info');
    expect(info?.samples.map((s) => s.value)).toEqual([1, 1, 1]);
    expect(out.requests).toBe(1);
    expect(out.failures).toBe(0);
    expect(out.diagnostics?.stationsInaccessible).toBe(0);
    expect(ctx.client.calls.map((c) => c.endpoint)).toEqual(['sites']);
  });

  it('reports configured stations the token cannot see', async () => {
    const plant = plantOf([2]);
    const seen = plant.lines[0]?.elements[0]?.id ?? '';
    const ctx = jobContext({ discovery: { station_ids: [seen, hexId(999)] } }, { sites: () => [plant] });
    const out = await new TopologyJob(ctx).poll({ now });
    expect(out.topology.stations.map((s) => s.id)).toEqual([seen]);
    expect(out.diagnostics?.stationsInaccessible).toBe(1);
  });

  it('asks for configured sites one by one, and a failure fails the poll', async () => {
    const plant = plantOf([1]);
    const ctx = jobContext({ discovery: { site_ids: [plant.id] } }, { sites: () => [plant] });
    const out = await new TopologyJob(ctx).poll({ now });
    expect(ctx.client.calls).toEqual([{ endpoint: 'site', query: plant.id }]);
    expect(out.requests).toBe(1);
    ctx.client.answers.sites = () => {
      throw new UpstreamError('site', 'status', { message: 'site: HTTP 500', status: 500 });
    };
    await expect(new TopologyJob(ctx).poll({ now })).rejects.toThrow('HTTP 500');
  });
});
