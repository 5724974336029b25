/** A discovery collector for scheduler tests: it always finds the same small plant. */
import type { DiscoveryCollector } from '../../src/collectors/collector.ts';
import type { Topology } from '../../src/collectors/topology/types.ts';
import { plantOf, topologyOf } from './fake-client.ts';

/** One site, one line of two stations. */
export const FAKE_TOPOLOGY: Topology = topologyOf([plantOf([2])]);

export const fakeDiscovery: DiscoveryCollector = {
  kind: 'discovery',
  name: 'topology',
  families: [],
  enabled: () => true,
  intervalMs: () => 60_000,
  createJob: () => ({
    poll: async () => ({ topology: FAKE_TOPOLOGY, families: [], requests: 1, failures: 0 }),
  }),
};
