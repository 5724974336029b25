/** The topology collector: discovery of site -> line -> station, and `station_info`. */
import type { DiscoveryCollector } from '../collector.ts';
import { topologyCosts } from './costs.ts';
import { STATION_INFO, STATION_LINE_OUTPUT_INFO } from './families.ts';
import { TopologyJob, type TopologyNeeds } from './job.ts';

export const topologyCollector: DiscoveryCollector<TopologyNeeds> = {
  kind: 'discovery',
  name: 'topology',
  families: [STATION_INFO, STATION_LINE_OUTPUT_INFO],
  // Nothing can be polled without a topology.
  enabled: () => true,
  intervalMs: (config) => config.discovery.refreshIntervalMs,
  createJob: (ctx) => new TopologyJob(ctx),
  costs: topologyCosts,
};
