/**
 * The memo of the units' walks (unitMemoHours) changes no answer: the same records in the same
 * order, the same summaries, as the clock moves on and the memo drops its oldest units, with
 * station events (silence, a changed fail rate) in force.
 */
import { describe, expect, it } from 'vitest';
import type { PlantOption, ProcessScenario } from '../../src/simulator/index.ts';
import { fixedSim, get, HOUR, NOW } from './helpers.ts';

const SCALE = { sites: 1, linesPerSite: 2, stationsPerLine: 6, measurementNames: 6, unitsPerHour: 30 };

function pair(process: ProcessScenario, plant: PlantOption = 'textbook') {
  const plain = fixedSim({ seed: 7, scale: SCALE, process, plant });
  const memo = fixedSim({ seed: 7, scale: SCALE, process, plant, unitMemoHours: 2 });
  return {
    plain,
    memo,
    stations: plain.sim.plant.stations,
    at(ms: number) {
      plain.clock.now = ms;
      memo.clock.now = ms;
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('unitMemoHours', () => {
  const probe = fixedSim({ seed: 7, scale: SCALE }).sim.plant.stations;
  const events: ProcessScenario = {
    events: [
      { kind: 'silence', stationId: probe[2]?.id ?? '', fromMs: NOW - HOUR, toMs: NOW + HOUR },
      { kind: 'fail_rate', stationId: probe[3]?.id ?? '', fromMs: NOW - 2 * HOUR, failRate: 0.4 },
    ],
  };

  it.each(['textbook', 'realistic'] as const)(
    'answers /units, /metrics and /station/summary as without it, while the clock moves on (%s plant)',
    async (plant) => {
      const p = pair(events, plant);
      const ids = p.stations.map((s) => s.id);
      const line = p.stations.filter((s) => s.lineId === p.stations[0]?.lineId).map((s) => s.id);
      for (let step = 0; step < 8; step++) {
        const now = NOW + step * 37 * 60_000;
        p.at(now);
        const paths = [
          `/units?station_ids=${ids.join(',')}&from=${iso(now - 3 * 60_000)}&to=${iso(now + 60_000)}`,
          `/metrics?station_ids=${ids.slice(0, 5).join(',')}&from=${iso(now - 90 * 60_000)}&to=${iso(now)}`,
          `/station/summary?station_ids=${line.join(',')}&from=${iso(now - 24 * HOUR)}&to=${iso(now)}`,
          `/station/summary?station_ids=${ids[3]}&from=${iso(now - HOUR)}&to=${iso(now)}`,
          `/station/summary?station_ids=${ids[2]}&from=${iso(now - 3 * HOUR)}&to=${iso(now)}`,
        ];
        // The response's meta (request id, query duration) is not data.
        for (const path of paths) {
          const [a, b] = [await get(p.plain.sim, path), await get(p.memo.sim, path)];
          expect(a.status, path).toBe(200);
          expect(JSON.stringify(b.body.data), path).toBe(JSON.stringify(a.body.data));
        }
      }
    },
  );

  it('gives every visit of a unit, even one asked after later windows', async () => {
    const p = pair({});
    p.at(NOW + 5 * HOUR);
    const ids = p.stations.map((s) => s.id).join(',');
    const late = `/units?station_ids=${ids}&from=${iso(NOW + 4 * HOUR)}&to=${iso(NOW + 5 * HOUR)}`;
    const early = `/units?station_ids=${ids}&from=${iso(NOW - HOUR)}&to=${iso(NOW)}`;
    for (const path of [late, early, late]) {
      const [a, b] = [await get(p.plain.sim, path), await get(p.memo.sim, path)];
      expect(a.body.data.length, path).toBeGreaterThan(100);
      expect(JSON.stringify(b.body.data), path).toBe(JSON.stringify(a.body.data));
    }
  });

  it.each(['textbook', 'realistic'] as const)(
    'answers summaries of any station set and window as without it (the memo summarizes by counts, %s plant)',
    async (plant) => {
      const p = pair(events, plant);
      const ids = p.stations.map((s) => s.id);
      const lineOf = (i: number) =>
        p.stations.filter((s) => s.lineId === p.stations[i]?.lineId).map((s) => s.id);
      const sets = [
        ids,
        lineOf(0),
        lineOf(ids.length - 1),
        [ids[0], ids[ids.length - 1]],
        [ids[2]],
        [ids[5]],
      ];
      // Windows that cut units' walks at both ends, reach past now, or lie wholly in the past.
      const windows = [
        [-24 * HOUR, 0],
        [-HOUR, 0],
        [-HOUR - 7 * 60_000, -13 * 60_000],
        [-30 * 60_000, 20 * 60_000],
        [-6 * HOUR, -5 * HOUR],
      ];
      let nonEmpty = 0;
      for (let step = 0; step < 3; step++) {
        const now = NOW + step * 53 * 60_000 + 1234;
        p.at(now);
        for (const set of sets)
          for (const [from, to] of windows) {
            const path = `/station/summary?station_ids=${set.join(',')}&from=${iso(now + (from ?? 0))}&to=${iso(now + (to ?? 0))}`;
            const [a, b] = [await get(p.plain.sim, path), await get(p.memo.sim, path)];
            expect(a.status, path).toBe(200);
            expect(JSON.stringify(b.body.data), path).toBe(JSON.stringify(a.body.data));
            if (a.body.data.unique_output > 0) nonEmpty++;
          }
      }
      expect(nonEmpty).toBeGreaterThan(60);
    },
  );

  it('summarizes the records when a yield drop is in force', async () => {
    const p = pair(events);
    const line = p.stations.filter((s) => s.lineId === p.stations[0]?.lineId).map((s) => s.id);
    for (const sim of [p.plain.sim, p.memo.sim])
      sim.setScenario({ yieldDrop: { lineId: p.stations[0]?.lineId ?? '', failRatio: 0.5 } });
    const path = `/station/summary?station_ids=${line.join(',')}&from=${iso(NOW - 2 * HOUR)}&to=${iso(NOW)}`;
    const [a, b] = [await get(p.plain.sim, path), await get(p.memo.sim, path)];
    expect(JSON.stringify(b.body.data)).toBe(JSON.stringify(a.body.data));
  });
});
