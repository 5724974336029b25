/** Topology collector: one `station_info` series per exported station, for joins. */
import type { Family, FamilyDesc } from '../../exposition/model.ts';
import type { Topology } from '../../model/topology.ts';

export const STATION_INFO: FamilyDesc = {
  name: 'station_info',
  kind: 'info',
  labels: [
    'site',
    'line',
    'station',
    'station_id',
    'group',
    'site_id',
    'line_id',
    'group_id',
    'position',
    'description',
  ],
  help: 'Descriptive labels of each exported station (ids, group, position along the line, description), from the upstream GET /sites hierarchy; always 1. Refreshed every discovery refresh_interval.',
};

export const STATION_LINE_OUTPUT_INFO: FamilyDesc = {
  name: 'station_line_output_info',
  kind: 'info',
  labels: ['site', 'line', 'station', 'station_id', 'group', 'position'],
  help: "The exported stations of each line's last element (a station or a group of parallel stations), where units leave the line, from the upstream GET /sites hierarchy; always 1. Absent for a line whose last element the discovery filters leave out. Refreshed every discovery refresh_interval.",
};

/** The topology's info families. */
export function topologyFamilies(topology: Topology): Family[] {
  const output = topology.stations.filter((s) => s.lineOutput);
  return [
    { desc: STATION_INFO, samples: topology.stations.map((s) => ({ labels: s.infoLabels, value: 1 })) },
    {
      desc: STATION_LINE_OUTPUT_INFO,
      samples: output.map((s) => ({ labels: s.labels.with('position', String(s.position)), value: 1 })),
    },
  ];
}
