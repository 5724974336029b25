import { createApp } from './app.ts';
import { DEFAULT_SCENARIO, patchScenario } from './faults.ts';
import { applyProcess, buildPlant, DEFAULT_SCALE } from './plant.ts';
import { realisticDesign } from './realistic-design.ts';
import { metricRecords, unitRecords } from './records.ts';
import { plantOfRecording, replayOffset, replaySource } from './replay.ts';
import { servedUnits } from './routes.ts';
import { applyYieldDrops } from './scenarios.ts';
import { type DataSource, plantSource } from './source.ts';
import type { SimState } from './state.ts';
import { summarize } from './summarize.ts';
import type { MetricRecordWire, Scenario, SimulatorOptions, SummaryWire, UnitRecordWire } from './types.ts';
import { UnitWalks } from './unit-walks.ts';

/** A running (socket-less) simulator of the Station Data Query Service. */
export type Simulator = ReturnType<typeof createSimulator>;

/** Creates a deterministic simulator; the same options and clock always give the same answers. */
export function createSimulator(opts: SimulatorOptions = {}) {
  const seed = opts.seed ?? 42;
  const now = opts.now ?? Date.now;
  const model = buildPlant(
    seed,
    { ...DEFAULT_SCALE, ...opts.scale },
    { exotic: opts.exoticNames ?? false, hostile: opts.hostileNames ?? false },
    opts.plant,
  );
  const processDrops = applyProcess(model, opts.process);
  const replay = opts.replay;
  const source: DataSource = replay
    ? replaySource(replay.recording, replayOffset(replay, now()))
    : plantSource(
        seed,
        model,
        opts.unitMemoHours === undefined ? undefined : new UnitWalks(seed, { hours: opts.unitMemoHours }),
      );
  const state: SimState = {
    seed,
    now,
    source,
    jwtSecret: opts.jwtSecret,
    tokens: opts.tokens ?? { 'demo-token': { sites: 'all' } },
    scenario: patchScenario(DEFAULT_SCENARIO, opts.scenario ?? {}),
    processDrops,
    requests: [],
    faultCounter: 0,
    yieldScale: opts.yieldScale ?? 'ratio',
    maxRecords: opts.maxRecords,
  };
  const window = (from: Date, to: Date) => ({ fromMs: from.getTime(), toMs: to.getTime(), nowMs: now() });
  const lower = (ids: string[]) => ids.map((id) => id.toLowerCase());
  return {
    /** The HTTP app; use `app.request()` in tests or serve it. */
    app: createApp(state),
    plant: replay ? plantOfRecording(replay.recording) : model.plant,
    /** Every request received outside `/_sim/*`, oldest first. */
    requests: state.requests,
    setScenario: (patch: Partial<Scenario>): void => {
      state.scenario = patchScenario(state.scenario, patch);
    },
    scenario: (): Scenario => structuredClone(state.scenario),
    clearRequests: (): void => {
      state.requests.length = 0;
    },
    /**
     * Ground truth of the synthetic plant with the process scenario's yield drops (not a replay's, not
     * the run-time scenario's): unit records as /units would return them before filters and caps.
     */
    unitsBetween: (ids: string[], from: Date, to: Date): UnitRecordWire[] =>
      applyYieldDrops(unitRecords({ seed, model }, lower(ids), window(from, to)), {
        sites: model.plant.sites,
        drops: processDrops,
        seed,
      }),
    /** Ground truth: measurement records, as /metrics would return them before the record cap. */
    metricsBetween: (
      ids: string[],
      { from, to, names }: { readonly from: Date; readonly to: Date; readonly names?: string[] },
    ): MetricRecordWire[] => metricRecords({ seed, model }, lower(ids), { w: window(from, to), names }),
    /** Ground truth: the summary /station/summary returns for these stations and window. */
    summaryOf: (ids: string[], from: Date, to: Date): SummaryWire =>
      summarize(servedUnits(state, lower(ids), window(from, to)), state.yieldScale),
    /** The realistic plant's design (lines' products, yields and stops; stations' rates); null otherwise. */
    realistic: replay ? null : realisticDesign(model),
  };
}
