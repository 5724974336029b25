/** The topology job: discovers the hierarchy, builds the labelled topology, exports `station_info`. */

import { LabelValues } from '../../model/label-values.ts';
import type { Topology } from '../../model/topology.ts';
import { infoStations, shardTopology } from '../../sharding/shard-topology.ts';
import type { DiscoveryOutcome, Job, Needs } from '../collector.ts';
import { buildTopology } from './build.ts';
import { cleanSites } from './clean.ts';
import { discoverSites } from './discover.ts';
import { topologyFamilies } from './families.ts';

/** What the topology job uses of the collector context. */
export type TopologyNeeds = Needs<'config' | 'client' | 'logger' | 'redact' | 'shard'>;

/** The discovery job. A failed discovery throws, so the previous topology stays in use. */
export class TopologyJob implements Job<{ now: Date; signal?: AbortSignal }, DiscoveryOutcome> {
  readonly #ctx: TopologyNeeds;
  // One per job: it logs each reason once for the job's life, not once per refresh.
  readonly #values: LabelValues;

  constructor(ctx: TopologyNeeds) {
    this.#ctx = ctx;
    this.#values = new LabelValues({ redact: ctx.redact, logger: ctx.logger, collector: 'topology' });
  }

  async poll({ signal }: { now: Date; signal?: AbortSignal }): Promise<DiscoveryOutcome> {
    const ctx = this.#ctx;
    const { discovery } = ctx.config;
    const found = await discoverSites(ctx.client, discovery.siteIds, signal);
    // Every label of every collector comes from this topology: cleaned once, here.
    const full = buildTopology(cleanSites(found.sites, this.#values), discovery, found.missingSiteIds);
    logTopology(ctx, full);
    // A replica reads the whole plant but polls only its shard; station_info goes with the site.
    const shard = ctx.shard;
    const topology = shardTopology(full, shard);
    return {
      topology,
      families: topologyFamilies({ ...full, stations: infoStations(full, shard) }),
      requests: found.requests,
      failures: 0,
      diagnostics: {
        stationsInaccessible: topology.missingStationIds.length,
        labelValues: this.#values.take(),
      },
    };
  }
}

function logTopology({ logger }: TopologyNeeds, topology: Topology): void {
  if (topology.missingStationIds.length + topology.missingSiteIds.length > 0) {
    logger.warn(
      { stations: topology.missingStationIds, sites: topology.missingSiteIds },
      'configured stations or sites are not accessible with this token',
    );
  }
  if (topology.renamed > 0) {
    logger.info(
      { renamed: topology.renamed },
      'sites, lines or groups share a name with a sibling: their labels carry an id suffix',
    );
  }
  if (topology.stations.length === 0) logger.warn('discovery found no station to export');
}
