/**
 * Replay: the Station Data Query Service answered from a recording (see `station-exporter
 * record`), optionally moved in time so that the end of the recording is the replay's start.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lowerBound } from '../util/sorted.ts';
import { readNdjson } from './ndjson.ts';
import type { Window } from './records.ts';
import type { DataSource, SourceStation } from './source.ts';
import type {
  MetricRecordWire,
  Plant,
  PlantStation,
  RecordedSummary,
  Recording,
  RecordingMeta,
  Replay,
  SiteWire,
  SummaryWire,
  UnitRecordWire,
} from './types.ts';

/** File names inside a recording directory. */
export const RECORDING_FILES = {
  meta: 'meta.json',
  sites: 'sites.ndjson.gz',
  units: 'units.ndjson.gz',
  metrics: 'metrics.ndjson.gz',
  summaries: 'summaries.ndjson.gz',
} as const;

const metaSchema = z.object({
  format: z.literal(1),
  from: z.string(),
  to: z.string(),
  measurementNames: z.array(z.string()),
}) satisfies z.ZodType<RecordingMeta>;

/** Loads a recording directory. */
export async function loadRecording(dir: string): Promise<Recording> {
  const file = (name: string) => path.join(dir, name);
  const metaText = await readFile(file(RECORDING_FILES.meta), 'utf8');
  const parsed = metaSchema.safeParse(JSON.parse(metaText));
  if (!parsed.success) throw new Error(`${file(RECORDING_FILES.meta)}: not a recording's meta.json`);
  const [sites, units, metrics, summaries] = await Promise.all([
    readNdjson<SiteWire>(file(RECORDING_FILES.sites)),
    readNdjson<UnitRecordWire>(file(RECORDING_FILES.units)),
    readNdjson<MetricRecordWire>(file(RECORDING_FILES.metrics)),
    readNdjson<RecordedSummary>(file(RECORDING_FILES.summaries)),
  ]);
  return { meta: parsed.data, sites, units, metrics, summaries };
}

/** The plant a recording describes (for the simulator's `plant`). */
export function plantOfRecording(rec: Recording): Plant {
  const stations: PlantStation[] = [];
  for (const site of rec.sites) {
    for (const line of site.lines) {
      line.elements.forEach((el, position) => {
        const base = { siteId: site.id, lineId: line.id, position };
        if (el.type === 'group') {
          for (const s of el.stations) stations.push({ id: s.id, name: s.name, ...base, groupId: el.id });
        } else stations.push({ id: el.id, name: el.name, ...base });
      });
    }
  }
  return { sites: rec.sites, stations, measurementNames: rec.meta.measurementNames };
}

interface Series<T> {
  times: number[];
  recs: T[];
}

/** Records by station, each list sorted by time. */
function byStation<T extends { station_id: string; time_created: string }>(records: readonly T[]) {
  const map = new Map<string, Series<T>>();
  const sorted = records.map((r) => ({ t: Date.parse(r.time_created), r })).sort((a, b) => a.t - b.t);
  for (const { t, r } of sorted) {
    const id = r.station_id.toLowerCase();
    const s = map.get(id) ?? { times: [], recs: [] };
    s.times.push(t);
    s.recs.push(r);
    map.set(id, s);
  }
  return map;
}

const shiftIso = (iso: string, offsetMs: number) => new Date(Date.parse(iso) + offsetMs).toISOString();

function shifted<T extends { time_created: string; time_inserted?: string }>(r: T, offsetMs: number): T {
  if (offsetMs === 0) return r;
  const out = { ...r, time_created: shiftIso(r.time_created, offsetMs) };
  if (r.time_inserted !== undefined) out.time_inserted = shiftIso(r.time_inserted, offsetMs);
  return out;
}

/**
 * Records of `ids` inside the window, moved by `offsetMs`. A recorded record is visible from
 * its (moved) time on, as a live one would be.
 */
function select<T extends { time_created: string; time_inserted?: string }>(
  index: Map<string, Series<T>>,
  query: { readonly ids: readonly string[]; readonly w: Window },
  opts: { readonly offsetMs: number; readonly keep?: ((r: T) => boolean) | undefined },
): T[] {
  const { ids, w } = query;
  const { offsetMs, keep = () => true } = opts;
  const from = w.fromMs - offsetMs;
  const to = Math.min(w.toMs, w.nowMs + 1) - offsetMs;
  const picked: Array<{ t: number; r: T }> = [];
  for (const id of ids) {
    const s = index.get(id.toLowerCase());
    if (!s) continue;
    for (let i = lowerBound(s.times, from); i < s.recs.length && s.times[i]! < to; i++) {
      if (keep(s.recs[i]!)) picked.push({ t: s.times[i]!, r: s.recs[i]! });
    }
  }
  picked.sort((a, b) => a.t - b.t);
  return picked.map((p) => shifted(p.r, offsetMs));
}

function summaryKey(ids: readonly string[], fromMs: number, toMs: number): string {
  return `${[...ids]
    .map((id) => id.toLowerCase())
    .sort()
    .join(',')}|${fromMs}|${toMs}`;
}

/** A recording as a data source; `offsetMs` is added to every recorded time. */
export function replaySource(rec: Recording, offsetMs: number): DataSource {
  const stations = new Map<string, SourceStation>();
  for (const s of plantOfRecording(rec).stations) {
    stations.set(s.id.toLowerCase(), {
      id: s.id.toLowerCase(),
      siteId: s.siteId.toLowerCase(),
      lineId: s.lineId,
    });
  }
  const units = byStation(rec.units);
  const metrics = byStation(rec.metrics);
  const summaries = new Map<string, SummaryWire>();
  for (const s of rec.summaries) {
    summaries.set(summaryKey(s.station_ids, Date.parse(s.from), Date.parse(s.to)), s.summary as SummaryWire);
  }
  return {
    sites: rec.sites,
    stations,
    units: (ids, w) => select(units, { ids: ids, w: w }, { offsetMs: offsetMs }),
    metrics: (ids, w, names) => {
      const wanted = names && names.length > 0 ? new Set(names) : undefined;
      return select(
        metrics,
        { ids: ids, w: w },
        { offsetMs: offsetMs, keep: wanted ? (r) => wanted.has(r.name) : undefined },
      );
    },
    recordedSummary: (ids, w) => summaries.get(summaryKey(ids, w.fromMs - offsetMs, w.toMs - offsetMs)),
  };
}

/** How far a replay moves recorded time: to end at `nowMs` with `shiftToNow`, else not at all. */
export function replayOffset(replay: Replay, nowMs: number): number {
  return replay.shiftToNow ? nowMs - Date.parse(replay.recording.meta.to) : 0;
}
