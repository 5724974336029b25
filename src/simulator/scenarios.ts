/**
 * Data scenarios: faults in what the plant reports, rather than in how the service answers.
 * They rewrite records as served, so the units, the summaries and everything computed from
 * them agree, and ending a scenario restores the original records at once.
 */
import { hashString, uniform } from './random.ts';
import type { DataSource } from './source.ts';
import type { UnitRecordWire, YieldDrop } from './types.ts';

/** Station ids of a line's last step (its last element: one station or every station of a group). */
function lastStepStations(source: DataSource, lineId: string): Set<string> {
  for (const site of source.sites) {
    for (const line of site.lines) {
      if (line.id.toLowerCase() !== lineId.toLowerCase()) continue;
      const last = line.elements.at(-1);
      if (!last) return new Set();
      return new Set(last.type === 'group' ? last.stations.map((s) => s.id) : [last.id]);
    }
  }
  return new Set();
}

/**
 * Applies a yield drop: a seeded share (`failRatio`) of the line's units fail every attempt at
 * the line's last step, which lowers both its first-pass and final yield by about that share.
 * A unit is chosen by its serial, so all of its records agree.
 */
export function applyYieldDrop(
  records: UnitRecordWire[],
  source: DataSource,
  drop: YieldDrop | null,
  seed: number,
): UnitRecordWire[] {
  if (!drop || drop.failRatio <= 0) return records;
  const last = lastStepStations(source, drop.lineId);
  if (last.size === 0) return records;
  return records.map((r) =>
    r.direction === 'output' &&
    last.has(r.station_id) &&
    uniform(seed, hashString(r.unit_serial), 0x5ca9) < drop.failRatio
      ? { ...r, result: 'fail' }
      : r,
  );
}
