import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { fixedSim, get, HOUR, NOW } from './helpers.ts';

function lineStations(sim: Simulator, lineId: string): string[] {
  return sim.plant.stations.filter((s) => s.lineId === lineId).map((s) => s.id);
}

async function lineSummary(sim: Simulator, lineId: string) {
  const ids = lineStations(sim, lineId).join(',');
  const from = new Date(NOW - HOUR).toISOString();
  const res = await get(sim, `/station/summary?station_ids=${ids}&from=${from}`);
  expect(res.status).toBe(200);
  return res.body.data as { final_yield: number; first_pass_yield: number; unique_output: number };
}

describe('yieldDrop scenario', () => {
  it('drops one line by about failRatio, leaves the others alone, and ends cleanly', async () => {
    const { sim } = fixedSim();
    const [target, other] = sim.plant.sites[0]!.lines.map((l) => l.id) as [string, string];
    const before = await lineSummary(sim, target);
    const otherBefore = await lineSummary(sim, other);
    sim.setScenario({ yieldDrop: { lineId: target, failRatio: 0.5 } });
    const during = await lineSummary(sim, target);
    // Units failing at the last step count as not passing: final yield falls by about half.
    expect(during.final_yield).toBeLessThan(before.final_yield * 0.75);
    expect(during.final_yield).toBeGreaterThan(before.final_yield * 0.25);
    expect(during.unique_output).toBe(before.unique_output);
    expect(await lineSummary(sim, other)).toEqual(otherBefore);
    // The served unit records agree with the summary: the failures are at the last step.
    const last = sim.plant.sites[0]!.lines[0]!.elements.at(-1)!;
    const lastIds = last.type === 'group' ? last.stations.map((s) => s.id) : [last.id];
    const units = await get(
      sim,
      `/units?station_ids=${lastIds.join(',')}&from=${new Date(NOW - HOUR).toISOString()}`,
    );
    const fails = units.body.data.filter((r: { result: string }) => r.result === 'fail').length;
    expect(fails / units.body.data.length).toBeGreaterThan(0.3);
    sim.setScenario({ yieldDrop: null });
    expect(await lineSummary(sim, target)).toEqual(before);
  });

  it('is validated like every scenario field', async () => {
    const { sim } = fixedSim();
    expect(() => sim.setScenario({ yieldDrop: { lineId: 'nope', failRatio: 0.5 } })).toThrow();
    expect(() => sim.setScenario({ yieldDrop: { lineId: 'a'.repeat(24), failRatio: 2 } })).toThrow();
  });
});
