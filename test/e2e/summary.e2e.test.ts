import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_FIELDS } from '../../src/collectors/summary/families.ts';
import { WINDOW_STATISTICS } from '../../src/config/measurements-schema.ts';
import type { SummaryWire } from '../../src/simulator/types.ts';
import { windowBounds } from '../../src/time/windows.ts';
import { type ParsedSample, parseExposition } from '../helpers/exposition.ts';
import { dataExposition, type Harness, startHarness } from '../helpers/harness.ts';
import { checkMetrics, promtoolPath } from '../helpers/promtool.ts';

const WINDOWS = [
  '1h',
  { name: '8h', type: 'rolling', duration: '8h' },
  { name: 'shift', type: 'shift', timezone: 'Europe/Berlin', shift_starts: ['06:00', '14:00', '22:00'] },
  { name: 'today', type: 'today', timezone: 'America/Chicago' },
];

let h: Harness;
let samples: ParsedSample[];
let text: string;

beforeAll(async () => {
  h = await startHarness({
    config: {
      windows: WINDOWS,
      measurements: {
        enabled: true,
        names: ['vcc_3v3', 'firmware_check'],
        statistics: { default: [...WINDOW_STATISTICS] },
      },
    },
  });
  expect(await h.exporter.scheduler.pollOnce()).toBe(true);
  text = await dataExposition(h.exporter);
  samples = parseExposition(text);
});
afterAll(() => h.close());

/** Every summary series of one level: `prefix` is the family prefix of that level. */
function expectLevel(
  prefix: string,
  entities: Array<{ match: Record<string, string>; stationIds: string[] }>,
) {
  let checked = 0;
  for (const spec of h.config.windows) {
    const { from, to } = windowBounds(spec, new Date(h.now()));
    for (const entity of entities) {
      const want: SummaryWire = h.sim.sim.summaryOf(entity.stationIds, from, to);
      for (const field of SUMMARY_FIELDS) {
        const name = prefix + field.suffix;
        const found = samples.filter(
          (s) =>
            s.name === name &&
            s.labels.window === spec.name &&
            Object.entries(entity.match).every(([k, v]) => s.labels[k] === v),
        );
        expect(found, `${name} ${JSON.stringify(entity.match)} ${spec.name}`).toHaveLength(1);
        expect(found[0]?.value).toBeCloseTo(want[field.wire as keyof SummaryWire], 12);
        checked++;
      }
    }
  }
  return checked;
}

describe('summary end to end, fixed seed and clock', () => {
  it('exports every station summary field equal to the upstream summary for that station and window', () => {
    const stations = h.sim.sim.plant.stations.map((s) => ({
      match: { station_id: s.id },
      stationIds: [s.id],
    }));
    expect(expectLevel('station_', stations)).toBe(stations.length * 4 * 10);
  });

  it('asks the upstream for whole groups, lines and sites, never combining stations locally', () => {
    const { plant } = h.sim.sim;
    const groups = plant.sites.flatMap((site) =>
      site.lines.flatMap((line) =>
        line.elements
          .filter((e) => e.type === 'group')
          .map((g) => ({
            match: { site: site.name, line: line.name, group: g.name },
            stationIds: g.type === 'group' ? g.stations.map((s) => s.id) : [],
          })),
      ),
    );
    expect(groups.length).toBeGreaterThan(0);
    expectLevel('station_group_', groups);
    const lines = plant.sites.flatMap((site) =>
      site.lines.map((line) => ({
        match: { site: site.name, line: line.name },
        stationIds: plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id),
      })),
    );
    expectLevel('station_line_', lines);
    const sites = plant.sites.map((site) => ({
      match: { site: site.name },
      stationIds: plant.stations.filter((s) => s.siteId === site.id).map((s) => s.id),
    }));
    expectLevel('station_site_', sites);
  });

  it('exports one station_info per station with its ids and position', () => {
    const info = samples.filter((s) => s.name === 'station_info');
    expect(info).toHaveLength(h.sim.sim.plant.stations.length);
    const first = h.sim.sim.plant.stations[0];
    const row = info.find((s) => s.labels.station_id === first?.id);
    expect(row?.labels.site_id).toBe(first?.siteId);
    expect(row?.labels.position).toBe(String((first?.position ?? 0) + 1));
  });

  it('matches the golden exposition of every collector (regenerate on purpose with vitest -u)', async () => {
    await expect(text).toMatchFileSnapshot('../golden/e2e.prom');
  });

  it.skipIf(!promtoolPath() && !process.env.CI)(
    'passes promtool check metrics, self-metrics included',
    async () => {
      const full = await (await h.exporter.app.request('/metrics')).text();
      const result = checkMetrics(full);
      expect(result.output).toBe('');
      expect(result.ok).toBe(true);
    },
  );

  it('serves OpenMetrics to Prometheus and gzip when accepted', async () => {
    const res = await h.exporter.app.request('/metrics', {
      headers: {
        accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
        'accept-encoding': 'gzip',
      },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1.0.0/);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const { gunzipSync } = await import('node:zlib');
    const body = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8');
    expect(body.endsWith('# EOF\n')).toBe(true);
    expect(body).toContain('station_exporter_scrapes_total{format="openmetrics",encoding="gzip"} 1');
    expect(
      parseExposition(body.replace('# EOF\n', '')).filter((s) => s.name === 'station_info'),
    ).toHaveLength(h.sim.sim.plant.stations.length);
  });
});
