/** Applies process scenarios (src/simulator/process-events.ts) to the plant model. */
import type { PlantModel, StationModel } from './plant.ts';
import type { ProcessScenario, YieldDrop } from './process-events.ts';

/**
 * Applies a scenario to a freshly built plant model: drift and measurement events change the
 * model; yield drops are returned, to be applied to the unit records as served (like the
 * run-time `yieldDrop` scenario). An event naming a station or line the plant lacks throws.
 */
export function applyProcess(model: PlantModel, scenario: ProcessScenario | undefined): YieldDrop[] {
  if (scenario === undefined) return [];
  const drops: YieldDrop[] = [];
  const stations = new Set<StationModel>();
  for (const st of model.stationsById.values()) {
    if (scenario.drift === false) st.measures = st.measures.map((m) => ({ ...m, driftAmp: 0 }));
    stations.add(st);
  }
  for (const e of scenario.events ?? []) {
    if (e.kind === 'yield_drop') {
      if (!hasLine(model, e.lineId)) throw new Error(`process event: no line ${e.lineId}`);
      const { kind: _, ...drop } = e;
      drops.push(drop);
      continue;
    }
    const st = model.stationsById.get(e.stationId.toLowerCase());
    if (st === undefined) throw new Error(`process event: no station ${e.stationId}`);
    if (e.kind === 'silence' || e.kind === 'fail_rate') st.stationEvents = [...(st.stationEvents ?? []), e];
    else st.events = [...(st.events ?? []), e];
  }
  return drops;
}

function hasLine(model: PlantModel, lineId: string): boolean {
  for (const st of model.stationsById.values()) if (st.lineId === lineId.toLowerCase()) return true;
  return false;
}
