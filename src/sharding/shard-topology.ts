/**
 * A replica's share of the topology: the stations, groups, lines and sites it owns (each by its
 * own id), so that every summary is asked for by one replica; `station_info` goes with the site.
 */
import type { StationNode, Topology } from '../model/topology.ts';
import { ownedBy, type Shard } from './shard.ts';

/** The topology this replica polls: owned stations, and owned groups, lines and sites. */
export function shardTopology(topology: Topology, shard: Shard): Topology {
  if (shard.total === 1) return topology;
  return {
    ...topology,
    stations: ownedBy(shard, topology.stations),
    groups: ownedBy(shard, topology.groups),
    lines: ownedBy(shard, topology.lines),
    sites: ownedBy(shard, topology.sites),
  };
}

/** The stations whose `station_info` this replica exports: those of the sites it owns. */
export function infoStations(topology: Topology, shard: Shard): readonly StationNode[] {
  if (shard.total === 1) return topology.stations;
  const sites = new Set(ownedBy(shard, topology.sites).map((s) => s.id));
  return topology.stations.filter((s) => sites.has(s.site.id));
}
