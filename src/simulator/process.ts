/** Applies process scenarios (src/simulator/process-events.ts) to the plant model. */
import type { PlantModel } from './plant.ts';
import type { MeasurementEvent, ProcessScenario, StationEvent, YieldDrop } from './process-events.ts';

/**
 * Applies a scenario to a freshly built plant model; yield drops are returned, to be applied to
 * the records as served. An event naming a station or line the plant lacks throws.
 */
export function applyProcess(model: PlantModel, scenario: ProcessScenario | undefined): YieldDrop[] {
  if (scenario === undefined) return [];
  if (scenario.drift === false) {
    for (const st of model.stationsById.values())
      st.measures = st.measures.map((m) => ({ ...m, driftAmp: 0 }));
  }
  const drops: YieldDrop[] = [];
  for (const e of scenario.events ?? []) {
    if (e.kind === 'yield_drop') {
      if (!hasLine(model, e.lineId)) throw new Error(`process event: no line ${e.lineId}`);
      const { kind: _, ...drop } = e;
      drops.push(drop);
    } else addStationEvent(model, e);
  }
  return drops;
}

/** Adds a measurement or station event to its station. */
function addStationEvent(model: PlantModel, e: MeasurementEvent | StationEvent): void {
  const st = model.stationsById.get(e.stationId.toLowerCase());
  if (st === undefined) throw new Error(`process event: no station ${e.stationId}`);
  if (e.kind === 'silence' || e.kind === 'fail_rate') st.stationEvents = [...(st.stationEvents ?? []), e];
  else st.events = [...(st.events ?? []), e];
}

function hasLine(model: PlantModel, lineId: string): boolean {
  return [...model.stationsById.values()].some((st) => st.lineId === lineId.toLowerCase());
}
