/**
 * Data scenarios: faults in what the plant reports, not in how the service answers. They rewrite
 * records as served, so units and summaries agree, and ending one restores the records at once;
 * they work on the synthetic plant and on a replay alike.
 */
import { getOrCreate } from '../util/maps.ts';
import { active, type YieldDrop } from './process-events.ts';
import { hashString, uniform } from './random.ts';
import type { SiteWire, UnitRecordWire } from './types.ts';

/** The drops that apply to each station of their line's last step (one station or a whole group). */
function dropsByStation(sites: readonly SiteWire[], drops: readonly YieldDrop[]): Map<string, YieldDrop[]> {
  const lines = sites.flatMap((s) => s.lines);
  const out = new Map<string, YieldDrop[]>();
  for (const d of drops) {
    if (d.failRatio <= 0) continue;
    const last = lines.find((l) => l.id.toLowerCase() === d.lineId.toLowerCase())?.elements.at(-1);
    const ids = last === undefined ? [] : last.type === 'group' ? last.stations.map((s) => s.id) : [last.id];
    for (const id of ids) getOrCreate(out, id, () => []).push(d);
  }
  return out;
}

/**
 * Applies yield drops: at a line's last step, an output record under drops whose ratios add up to
 * `r` fails when its serial's seeded draw is below `r`, so all of a unit's records agree.
 */
export function applyYieldDrops(
  records: UnitRecordWire[],
  plant: { readonly sites: readonly SiteWire[]; readonly drops: readonly YieldDrop[]; readonly seed: number },
): UnitRecordWire[] {
  const { sites, drops, seed } = plant;
  if (drops.length === 0) return records;
  const byStation = dropsByStation(sites, drops);
  if (byStation.size === 0) return records;
  return records.map((r) => {
    const mine = r.direction === 'output' ? byStation.get(r.station_id) : undefined;
    if (mine === undefined) return r;
    const t = Date.parse(r.time_created);
    let ratio = 0;
    for (const d of mine) if (active(d, t)) ratio += d.failRatio;
    return ratio > 0 && uniform(seed, hashString(r.unit_serial), 0x5ca9) < ratio
      ? { ...r, result: 'fail' }
      : r;
  });
}
