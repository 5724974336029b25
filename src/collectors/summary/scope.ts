/**
 * Which stations an aggregate summary covers (`summary.aggregate_over`): by default the full set
 * from /sites, so that a line's series describes the whole line, whatever the filters export.
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
