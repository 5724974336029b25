import { describe, expect, it } from 'vitest';
import { SummaryJob } from '../../../src/collectors/summary/job.ts';
import { buildTopology } from '../../../src/collectors/topology/build.ts';
import { UpstreamError } from '../../../src/upstream/errors.ts';
import type { StationSummary } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { byLabel } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
// Line 1 has one station (its line request is the station's), line 2 has two.
const plant = plantOf([1, 2]);
const [s1, s2, s3] = plant.lines.flatMap((l) => l.elements.map((e) => e.id));
const topology = topologyOf([plant]);

/** An answer that encodes the station set: 10 units per station, yield 0.5 + 0.1 per station. */
const answer = (q: { stationIds: readonly string[] }): StationSummary => ({
  uniqueUnits: 10 * q.stationIds.length,
  firstPassYield: 0.5 + 0.1 * q.stationIds.length,
});

function setup() {
  const ctx = jobContext(
    { windows: ['15m'], summary: { levels: ['station', 'line', 'site'] } },
    { summary: answer },
  );
  return { ctx, job: new SummaryJob(ctx) };
}

describe('summary job', () => {
  it('asks once per distinct station set and exports every level from its own answer', async () => {
    const { ctx, job } = setup();
    const out = await job.poll({ topology, now: new Date(T0) });
    // station x3, line 2, site; line 1 shares the request of its only station.
    expect(out.requests).toBe(5);
    expect(ctx.client.calls).toHaveLength(5);
    expect(out.failures).toBe(0);
    expect(byLabel(out.families, 'station_unique_units', 'station_id')).toEqual(
      new Map([
        [s1, 10],
        [s2, 10],
        [s3, 10],
      ]),
    );
    expect(byLabel(out.families, 'station_line_unique_units', 'line')).toEqual(
      new Map([
        ['Line 1', 10],
        ['Line 2', 20],
      ]),
    );
    expect(byLabel(out.families, 'station_site_first_pass_yield_ratio', 'site').get('Plant')).toBeCloseTo(
      0.8,
      12,
    );
    const q = ctx.client.calls[0]?.query as { from: Date; to: Date };
    expect(q.to.getTime() - q.from.getTime()).toBe(15 * MIN);
  });

  it('keeps a failed entity at its last good answer for 5 intervals, then drops it', async () => {
    const { ctx, job } = setup();
    await job.poll({ topology, now: new Date(T0) });
    ctx.client.answers.summary = (q) => {
      if (q.stationIds.includes(s2 ?? ''))
        throw new UpstreamError('station_summary', 'status', { message: 'HTTP 503', status: 503 });
      return { uniqueUnits: 99 };
    };
    const kept = await job.poll({ topology, now: new Date(T0 + 5 * MIN) });
    // Station 2, line 2 and the site hold station 2: three failed requests of five.
    expect(kept.failures).toBe(3);
    expect(kept.requests).toBe(5);
    const stations = byLabel(kept.families, 'station_unique_units', 'station_id');
    expect(stations.get(s1 ?? '')).toBe(99);
    expect(stations.get(s2 ?? '')).toBe(10);
    const gone = await job.poll({ topology, now: new Date(T0 + 5 * MIN + 1) });
    expect(byLabel(gone.families, 'station_unique_units', 'station_id').has(s2 ?? '')).toBe(false);
    expect(byLabel(gone.families, 'station_site_unique_units', 'site').size).toBe(0);
  });

  it('takes 403 and 404 as no data, not as failures', async () => {
    const { ctx, job } = setup();
    ctx.client.answers.summary = (q) => {
      if (q.stationIds.length === 1 && q.stationIds[0] === s3) {
        throw new UpstreamError('station_summary', 'status', { message: 'HTTP 403', status: 403 });
      }
      return answer(q);
    };
    const out = await job.poll({ topology, now: new Date(T0) });
    expect(out.failures).toBe(0);
    expect(byLabel(out.families, 'station_unique_units', 'station_id').has(s3 ?? '')).toBe(false);
  });

  it('skips levels whose URL would be too long and says so in its diagnostics', async () => {
    // A base URL of 882 characters, '/station/summary?station_ids=' (29), the ids, and '&from='
    // and '&to=' with ISO times (10 + 2 x 24) make 993 characters for one id (24) and 1,043 for
    // three ids with their commas (74): one fits under 1,024, three do not.
    const base = `http://fake/${'p'.repeat(870)}`;
    const ctx = jobContext(
      {
        windows: ['15m'],
        summary: { levels: ['station', 'site'] },
        upstream: { base_url: base, token: 't', max_url_length: 1024 },
      },
      { summary: answer },
    );
    const out = await new SummaryJob(ctx).poll({ topology, now: new Date(T0) });
    expect(out.diagnostics?.levelsSkipped).toEqual([{ level: 'site', reason: 'url_too_long', count: 1 }]);
    expect(out.requests).toBe(3);
  });
});

describe('summary job on a filtered line', () => {
  // Line 1 has three stations; the filter exports only its first.
  const site = plantOf([3]);
  const ids = site.lines[0]!.elements.map((e) => e.id);
  const filtered = buildTopology([site], {
    stationIds: [],
    include: { sites: [], lines: [], stations: [] },
    exclude: { sites: [], lines: [], stations: ids.slice(1).map((i) => new RegExp(`^${i}$`)) },
  });
  const run = async (aggregateOver?: string) => {
    const ctx = jobContext(
      {
        windows: ['15m'],
        summary: {
          levels: ['station', 'line', 'site'],
          ...(aggregateOver ? { aggregate_over: aggregateOver } : {}),
        },
      },
      { summary: answer },
    );
    const out = await new SummaryJob(ctx).poll({ topology: filtered, now: new Date(T0) });
    return { ctx, out };
  };

  it('asks the line and site summaries for all stations of the line by default', async () => {
    const { ctx, out } = await run();
    const asked = ctx.client.calls.map((c) => (c.query as { stationIds: string[] }).stationIds);
    expect(asked).toContainEqual(ids);
    // The answer encodes the station count: 10 units per station.
    expect(byLabel(out.families, 'station_line_unique_units', 'line').get('Line 1')).toBe(30);
    expect(byLabel(out.families, 'station_unique_units', 'station_id')).toEqual(new Map([[ids[0], 10]]));
    expect(byLabel(out.families, 'station_line_stations', 'line').get('Line 1')).toBe(3);
    expect(byLabel(out.families, 'station_line_covered_stations', 'line').get('Line 1')).toBe(3);
    expect(byLabel(out.families, 'station_site_covered_stations', 'site').get('Plant')).toBe(3);
  });

  it('covers only the exported stations with aggregate_over: exported_stations, and says so', async () => {
    const { out } = await run('exported_stations');
    expect(byLabel(out.families, 'station_line_unique_units', 'line').get('Line 1')).toBe(10);
    expect(byLabel(out.families, 'station_line_stations', 'line').get('Line 1')).toBe(3);
    expect(byLabel(out.families, 'station_line_covered_stations', 'line').get('Line 1')).toBe(1);
  });
});
