import { describe, expect, it } from 'vitest';
import { SummaryJob } from '../../../src/collectors/summary/job.ts';
import { TopologyJob } from '../../../src/collectors/topology/job.ts';
import { UpstreamError } from '../../../src/upstream/errors.ts';
import type { Site } from '../../../src/upstream/types.ts';
import { duplicateSeries, parseExposition } from '../../helpers/exposition.ts';
import { hexId, plantOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';
import { renderFamilies } from '../../helpers/render.ts';

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

  it('keeps sites whose names differ only in lone surrogates apart in the exposition', async () => {
    // Three names to JavaScript; one to UTF-8, which writes a lone surrogate as U+FFFD.
    const names = ['P\ud800', 'P\udbff', 'P\ufffd'];
    const sites: Site[] = names.map((name, i) => ({
      ...plantOf([2]),
      id: hexId(1 + i),
      name,
      lines: plantOf([2]).lines.map((l) => ({
        ...l,
        id: hexId(50 + i),
        elements: l.elements.map((e, k) => ({ ...e, id: hexId(200 + 10 * i + k) })),
      })),
    }));
    const ctx = jobContext(
      { windows: ['15m'], summary: { levels: ['station', 'line', 'site'] } },
      { sites: () => sites, summary: () => ({ uniqueUnits: 10, firstPassYield: 0.9 }) },
    );
    const discovered = await new TopologyJob(ctx).poll({ now });
    const summary = await new SummaryJob(ctx).poll({ topology: discovered.topology, now });
    const text = renderFamilies([...discovered.families, ...summary.families], 'text');
    const samples = parseExposition(text);
    expect(samples.length).toBeGreaterThan(20);
    expect(duplicateSeries(samples)).toEqual([]);
    const siteLabels = new Set(
      samples.filter((x) => x.name === 'station_site_unique_units').map((x) => x.labels.site),
    );
    expect(siteLabels).toEqual(new Set(['P\ufffd (000001)', 'P\ufffd (000002)', 'P\ufffd (000003)']));
    expect(discovered.diagnostics?.labelValues).toEqual([{ reason: 'ill_formed', count: 2 }]);
  });
});
