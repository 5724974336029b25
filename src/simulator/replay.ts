/**
 * Replay: the Station Data Query Service answered from a recording (see `station-exporter
 * record`), optionally moved in time so that the end of the recording is the replay's start.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { getOrCreate } from '../util/maps.ts';
import { lowerBound } from '../util/sorted.ts';
import { readNdjson } from './ndjson.ts';
import { stationsOf } from './plant.ts';
import { type Timed, timed, type Window } from './records.ts';
import { type DataSource, stationIndex } from './source.ts';
import type {
  MetricRecordWire,
  Plant,
  RecordedSummary,
  Recording,
  RecordingMeta,
  RecordingPart,
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
} as const satisfies Record<RecordingPart | 'meta', string>;

const digestSchema = z.object({ bytes: z.number().int().nonnegative(), sha256: z.string() });

const metaSchema = z.object({
  format: z.literal(2),
  id: z.string(),
  files: z.object({
    sites: digestSchema,
    units: digestSchema,
    metrics: digestSchema,
    summaries: digestSchema,
  }),
  from: z.string(),
  to: z.string(),
  measurementNames: z.array(z.string()),
}) satisfies z.ZodType<RecordingMeta>;

/** A directory that holds no complete recording; the message says which file and why. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

const RECORD_AGAIN = 'record it again';

/** Reads and checks `meta.json`, the file a record run writes last. */
async function readMeta(dir: string): Promise<RecordingMeta> {
  const where = path.join(dir, RECORDING_FILES.meta);
  let text: string;
  try {
    text = await readFile(where, 'utf8');
  } catch {
    throw new RecordingError(
      `${where}: missing, so ${dir} holds no complete recording (record writes it last, and removes it first when it replaces a recording)`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RecordingError(`${where}: not JSON; ${RECORD_AGAIN}`);
  }
  const format = (parsed as { format?: unknown } | null)?.format;
  if (format === 1)
    throw new RecordingError(
      `${where}: format 1 has no sizes or checksums, so a truncated or mixed recording cannot be told from a complete one; ${RECORD_AGAIN}`,
    );
  const meta = metaSchema.safeParse(parsed);
  if (!meta.success) throw new RecordingError(`${where}: not a recording's meta.json`);
  return meta.data;
}

/** Loads a recording directory; a file whose size or SHA-256 differs from `meta.json`'s is refused. */
export async function loadRecording(dir: string): Promise<Recording> {
  const meta = await readMeta(dir);
  const read = async <T>(part: RecordingPart): Promise<T[]> => {
    try {
      return await readNdjson<T>(path.join(dir, RECORDING_FILES[part]), meta.files[part]);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new RecordingError(
        `${why}: not the file of recording ${meta.id} (truncated, or from another recording); ${RECORD_AGAIN}`,
      );
    }
  };
  const [sites, units, metrics, summaries] = await Promise.all([
    read<SiteWire>('sites'),
    read<UnitRecordWire>('units'),
    read<MetricRecordWire>('metrics'),
    read<RecordedSummary>('summaries'),
  ]);
  return { meta, sites, units, metrics, summaries };
}

/** The plant a recording describes (for the simulator's `plant`). */
export function plantOfRecording(rec: Recording): Plant {
  return { sites: rec.sites, stations: stationsOf(rec.sites), measurementNames: rec.meta.measurementNames };
}

/** Records by station, each list sorted by time. */
function byStation<T extends { station_id: string; time_created: string }>(records: readonly T[]) {
  const map = new Map<string, Timed<T>>();
  const sorted = records.map((r) => ({ t: Date.parse(r.time_created), r })).sort((a, b) => a.t - b.t);
  for (const { t, r } of sorted) {
    const s = getOrCreate(map, r.station_id.toLowerCase(), timed<T>);
    s.times.push(t);
    s.recs.push(r);
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

/** Records of `ids` inside the window, moved by `offsetMs`: visible from their moved time on. */
function select<T extends { time_created: string; time_inserted?: string }>(
  index: Map<string, Timed<T>>,
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
  const sorted = ids.map((id) => id.toLowerCase()).sort();
  return `${sorted.join(',')}|${fromMs}|${toMs}`;
}

/** A recording as a data source; `offsetMs` is added to every recorded time. */
export function replaySource(rec: Recording, offsetMs: number): DataSource {
  const units = byStation(rec.units);
  const metrics = byStation(rec.metrics);
  const summaries = new Map<string, SummaryWire>();
  for (const s of rec.summaries)
    summaries.set(summaryKey(s.station_ids, Date.parse(s.from), Date.parse(s.to)), s.summary as SummaryWire);
  return {
    sites: rec.sites,
    stations: stationIndex(stationsOf(rec.sites)),
    units: (ids, w) => select(units, { ids, w }, { offsetMs }),
    metrics: (ids, w, names) => {
      const wanted = names && names.length > 0 ? new Set(names) : undefined;
      return select(metrics, { ids, w }, { offsetMs, keep: wanted ? (r) => wanted.has(r.name) : undefined });
    },
    recordedSummary: (ids, w) => summaries.get(summaryKey(ids, w.fromMs - offsetMs, w.toMs - offsetMs)),
  };
}

/** How far a replay moves recorded time: to end at `nowMs` with `shiftToNow`, else not at all. */
export function replayOffset(replay: Replay, nowMs: number): number {
  return replay.shiftToNow ? nowMs - Date.parse(replay.recording.meta.to) : 0;
}
