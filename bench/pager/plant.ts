/** The plant every bench:pager run simulates: its start and its size. */
import type { PlantScale } from '../../src/simulator/types.ts';

/** A Sunday midnight, away from any DST change; the data starts here. */
export const START = Date.parse('2026-11-01T00:00:00.000Z');

/** Units entering each line an hour (the simulator's nominal rate), and the targets' stated flow. */
export const UNITS_PER_HOUR = 30;

/**
 * The nominal rate of the fault runs of the realistic plant, whose delay targets are stated at 30
 * units an hour a line: 4 % of the simulator's slots stay empty, so 31.25 sends 30 units an hour
 * into a running line (about 28 leave it, after scrap). Its lines also stand still at shift
 * changes, meal breaks and now and then for an hour, so over a day they make about 26 an hour;
 * the faults come while the line runs (FAULT_HOURS).
 */
export const REALISTIC_FAULT_UNITS_PER_HOUR = 31.25;

/**
 * When the faults come, in hours after the start: 04:30 UTC. The realistic lines of seeds 7, 8
 * and 9 hand over a shift from 03:00 UTC (22:00 in their zone) for 14 to 17 minutes and break for
 * their meal from 08:00, so a fault then meets a line that has run for an hour and runs for 3.5
 * more; at 3 hours it met a stopped line, and a silent station's gap grew by the stop.
 */
export const FAULT_HOURS = 4.5;

/** Lines of 10 stations, up to 20 lines a site, `unitsPerHour` entering each line (nominal). */
export function plantScale(stations: number, unitsPerHour = UNITS_PER_HOUR): PlantScale {
  const lines = Math.max(1, Math.round(stations / 10));
  return {
    sites: Math.ceil(lines / 20),
    linesPerSite: Math.min(20, lines),
    stationsPerLine: 10,
    measurementNames: 20,
    unitsPerHour,
  };
}
