/** What the topology collector costs: one `station_info` series per station (discovery is not planned). */
import type { CollectorCosts } from '../../model/plan.ts';
import { STATION_INFO } from './families.ts';

export const topologyCosts: CollectorCosts = {
  series: (_config, counts) => [
    { collector: 'topology', family: STATION_INFO.name, series: counts.stations },
  ],
};
