/** Topology collector: one `station_info` series per exported station, for joins. */
import type { Family, FamilyDesc } from '../../exposition/model.ts';
import type { Topology } from './types.ts';

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

/** The topology's info family. */
export function topologyFamilies(topology: Topology): Family[] {
  return [
    { desc: STATION_INFO, samples: topology.stations.map((s) => ({ labels: s.infoLabels, value: 1 })) },
  ];
}
