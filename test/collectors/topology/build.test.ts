import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../../src/collectors/topology/build.ts';
import type { NameFilter } from '../../../src/model/topology.ts';
import type { Site } from '../../../src/upstream/types.ts';

const id = (n: number) => n.toString(16).padStart(24, '0');
const none: NameFilter = { sites: [], lines: [], stations: [] };
const st = (n: number, name: string) => ({
  kind: 'station' as const,
  id: id(n),
  name,
  description: `desc ${name}`,
});

const sites: Site[] = [
  {
    id: id(1),
    name: 'Austin',
    description: '',
    lines: [
      {
        id: id(10),
        name: 'SMT 1',
        description: '',
        elements: [
          st(100, 'AOI'),
          {
            kind: 'group',
            id: id(200),
            name: 'ICT',
            description: '',
            stations: [
              { id: id(101), name: 'ICT-1', description: '' },
              { id: id(102), name: 'ICT-2', description: '' },
            ],
          },
          st(103, 'Prüfstand "A"\\n'),
        ],
      },
      { id: id(11), name: 'SMT 1', description: 'same name', elements: [st(110, 'AOI')] },
    ],
  },
  {
    id: id(2),
    name: 'Berlin',
    description: '',
    lines: [{ id: id(20), name: 'L', description: '', elements: [st(120, 'X')] }],
  },
];

describe('buildTopology', () => {
  it('labels stations with site, line, station, station_id and group', () => {
    const t = buildTopology(sites, { stationIds: [], include: none, exclude: none });
    expect(t.stations.map((s) => s.labels.text)).toEqual([
      `site="Austin",line="SMT 1 (00000a)",station="AOI",station_id="${id(100)}"`,
      `site="Austin",line="SMT 1 (00000a)",station="ICT-1",station_id="${id(101)}",group="ICT"`,
      `site="Austin",line="SMT 1 (00000a)",station="ICT-2",station_id="${id(102)}",group="ICT"`,
      `site="Austin",line="SMT 1 (00000a)",station="Prüfstand \\"A\\"\\\\n",station_id="${id(103)}"`,
      `site="Austin",line="SMT 1 (00000b)",station="AOI",station_id="${id(110)}"`,
      `site="Berlin",line="L",station="X",station_id="${id(120)}"`,
    ]);
    expect(t.renamed).toBe(2);
    expect(t.stations[1]?.position).toBe(2);
    expect(t.stations[1]?.infoLabels.text).toContain(`group_id="${id(200)}",position="2"`);
  });

  it('builds group, line and site entities with all their station ids', () => {
    const t = buildTopology(sites, { stationIds: [], include: none, exclude: none });
    expect(t.groups).toHaveLength(1);
    expect(t.groups[0]?.stationIds).toEqual([id(101), id(102)]);
    expect(t.groups[0]?.labels.text).toBe('site="Austin",line="SMT 1 (00000a)",group="ICT"');
    expect(t.lines.map((l) => l.stationIds.length)).toEqual([4, 1, 1]);
    expect(t.sites.map((s) => s.stationIds.length)).toEqual([5, 1]);
  });

  it('applies include/exclude on names or ids and reports configured stations it cannot see', () => {
    const t = buildTopology(sites, {
      stationIds: [id(101), id(120), id(999)],
      include: { sites: [], lines: [], stations: [] },
      exclude: { sites: [/^Berlin$/], lines: [], stations: [] },
    });
    expect(t.stations.map((s) => s.name)).toEqual(['ICT-1']);
    expect(t.missingStationIds).toEqual([id(120), id(999)]);
    const byId = buildTopology(sites, {
      stationIds: [],
      include: { sites: [], lines: [new RegExp(`^${id(11)}$`)], stations: [] },
      exclude: none,
    });
    expect(byId.stations.map((s) => s.id)).toEqual([id(110)]);
  });

  it('keeps every station of the hierarchy in the group, line and site sets, whatever the filters', () => {
    const t = buildTopology(sites, {
      stationIds: [],
      include: none,
      exclude: { sites: [], lines: [new RegExp(`^${id(11)}$`)], stations: [/^ICT-2$/, /^AOI$/] },
    });
    expect(t.stations.map((s) => s.name)).toEqual(['ICT-1', 'Prüfstand "A"\\n', 'X']);
    // Exported stations of the first line, and all four of its stations.
    expect(t.lines[0]?.stationIds).toEqual([id(101), id(103)]);
    expect(t.lines[0]?.allStationIds).toEqual([id(100), id(101), id(102), id(103)]);
    expect(t.groups[0]?.stationIds).toEqual([id(101)]);
    expect(t.groups[0]?.allStationIds).toEqual([id(101), id(102)]);
    // Austin holds the excluded line 11 too.
    expect(t.sites[0]?.allStationIds).toEqual([id(100), id(101), id(102), id(103), id(110)]);
    expect(t.sites[0]?.stationIds).toEqual([id(101), id(103)]);
  });

  it("marks the stations of each line's last element as its output", () => {
    const t = buildTopology(sites, { stationIds: [], include: none, exclude: none });
    expect(t.stations.filter((s) => s.lineOutput).map((s) => s.id)).toEqual([id(103), id(110), id(120)]);
    // When the last station is filtered out, the line has no output station rather than a wrong one.
    const f = buildTopology(sites, {
      stationIds: [],
      include: none,
      exclude: { sites: [], lines: [], stations: [new RegExp(`^${id(103)}$`)] },
    });
    expect(f.stations.filter((s) => s.lineOutput).map((s) => s.id)).toEqual([id(110), id(120)]);
  });
});
