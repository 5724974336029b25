/** The plant every bench:pager run simulates: its start and its size. */
import type { PlantScale } from '../../src/simulator/types.ts';

/** A Sunday midnight, away from any DST change; the data starts here. */
export const START = Date.parse('2026-11-01T00:00:00.000Z');

/** Units entering each line an hour. */
export const UNITS_PER_HOUR = 30;

/** Lines of 10 stations, up to 20 lines a site. */
export function plantScale(stations: number): PlantScale {
  const lines = Math.max(1, Math.round(stations / 10));
  return {
    sites: Math.ceil(lines / 20),
    linesPerSite: Math.min(20, lines),
    stationsPerLine: 10,
    measurementNames: 20,
    unitsPerHour: UNITS_PER_HOUR,
  };
}
