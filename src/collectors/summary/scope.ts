/**
 * Which stations a group, line or site summary covers (`summary.aggregate_over`). By default
 * the element's full station set from the /sites hierarchy, so that a series labelled with a
 * line describes the whole line; the discovery filters then only choose which station series
 * are exported. `exported_stations` restricts the summaries to the exported stations.
 */
import type { SummaryAggregateOver } from '../../config/schema.ts';
import type { Entity, Topology } from '../../model/topology.ts';

/** The topology whose entities ask for the stations `aggregateOver` names. */
export function summaryScope(topology: Topology, aggregateOver: SummaryAggregateOver): Topology {
  if (aggregateOver === 'exported_stations') return topology;
  const full = (entities: readonly Entity[]) => entities.map((e) => ({ ...e, stationIds: e.allStationIds }));
  return {
    ...topology,
    groups: full(topology.groups),
    lines: full(topology.lines),
    sites: full(topology.sites),
  };
}
