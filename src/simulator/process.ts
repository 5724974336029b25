/** Applies process scenarios (src/simulator/process-events.ts) to the plant model. */
import type { LineModel, PlantModel, StationModel } from './plant.ts';
import { active, type ProcessScenario } from './process-events.ts';

/** Applies a scenario to a freshly built plant model. */
export function applyProcess(model: PlantModel, scenario: ProcessScenario | undefined): void {
  if (scenario === undefined) return;
  const events = scenario.events ?? [];
  const stations = new Set<StationModel>();
  for (const st of model.stationsById.values()) {
    if (scenario.drift === false) st.measures = st.measures.map((m) => ({ ...m, driftAmp: 0 }));
    stations.add(st);
  }
  for (const e of events) {
    if (e.kind === 'yield_drop') {
      const line = lineOf(model, e.lineId);
      line.yieldDrops = [...(line.yieldDrops ?? []), e];
      continue;
    }
    const st = model.stationsById.get(e.stationId.toLowerCase());
    if (st === undefined) throw new Error(`process event: no station ${e.stationId}`);
    st.events = [...(st.events ?? []), e];
  }
}

function lineOf(model: PlantModel, lineId: string): LineModel {
  for (const st of model.stationsById.values()) if (st.lineId === lineId.toLowerCase()) return st.line;
  throw new Error(`process event: no line ${lineId}`);
}

/** Extra first-attempt failure probability of a line at time `t`. */
export function extraFailRate(line: LineModel, t: number): number {
  let rate = 0;
  for (const e of line.yieldDrops ?? []) if (active(e, t)) rate += e.failRate;
  return rate;
}
