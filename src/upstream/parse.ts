/** Mapping of upstream records into domain types. Pure functions; no I/O. */
import type { z } from 'zod';
import { isValidTimeZone, type WallTime, zonedTimeToEpoch } from '../time/zones.ts';
import type { LoopYielder } from '../util/loop-yield.ts';
import { ItemSlices } from './envelope.ts';
import {
  elementSchema,
  lineSchema,
  metricRecordSchema,
  SUMMARY_FIELDS,
  siteSchema,
  stationRefSchema,
  summarySchema,
  unitRecordSchema,
} from './schemas.ts';
import type {
  Line,
  LineElement,
  MeasurementRecord,
  RecordList,
  Site,
  StationRef,
  StationSummary,
  UnitRecord,
} from './types.ts';

/** Counts skipped records by reason while mapping. */
class SkipCounter {
  readonly counts: Record<string, number> = {};
  add(reason: string): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + 1;
  }
}

const ID = /^[0-9a-fA-F]{24}$/;

/** True when `id` has the documented identifier shape (24 hexadecimal characters). */
export function isValidId(id: string): boolean {
  return ID.test(id);
}

/**
 * Which zone a `time_created` without an offset is read in: `record` (the record's own `tz`,
 * UTC when it has none or an unreadable one), `UTC`, or an IANA zone name.
 */
type NaiveTimeZone = 'record' | 'UTC' | (string & {});

/** How record lists are mapped; `naiveTimeZone` defaults to `record`. */
export interface RecordParseOptions {
  readonly naiveTimeZone?: NaiveTimeZone;
}

const NAIVE_ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/;
const OFFSET = /^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/**
 * Offset in ms of a `tz` written as an offset (`+02:00`, `-0530`, `UTC+2`, `GMT-05:30`, `Z`,
 * `UTC`); `undefined` when it is not one.
 */
export function fixedOffsetMs(tz: string): number | undefined {
  const s = tz.trim();
  if (/^(Z|UTC|GMT)$/i.test(s)) return 0;
  const m = OFFSET.exec(s);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 18 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/** The zone a naive time of a record with `tz` is read in: an offset in ms, or an IANA name. */
function zoneOf(tz: unknown, naive: NaiveTimeZone): number | string {
  if (naive !== 'record') return naive === 'UTC' ? 0 : naive;
  if (typeof tz !== 'string' || tz.trim() === '') return 0;
  const offset = fixedOffsetMs(tz);
  if (offset !== undefined) return offset;
  return isValidTimeZone(tz.trim()) ? tz.trim() : 0;
}

/**
 * Parses `time_created`, whose format the interface does not state: ISO 8601 with or without an
 * offset (or a space for the `T`), or epoch seconds or milliseconds. A time without an offset is
 * wall-clock time in `zone`: an offset in ms (default 0) or an IANA zone name.
 */
export function parseTime(value: string | number, zone: number | string = 0): number | undefined {
  if (typeof value === 'number') return epoch(value);
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return epoch(Number(s));
  const iso = s.includes('T') ? s : s.replace(' ', 'T');
  const naive = NAIVE_ISO.exec(iso);
  if (naive) return naiveTime(naive, zone);
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

function naiveTime(m: RegExpExecArray, zone: number | string): number | undefined {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as number[];
  const fraction = m[7] === undefined ? 0 : Math.round(Number(m[7]) * 1000);
  const wall = { year, month, day, hour, minute, second } as WallTime;
  // Reject what Date.UTC would roll over (e.g. February 30th).
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const back = new Date(asUtc);
  if (back.getUTCDate() !== wall.day || back.getUTCHours() !== wall.hour || wall.month > 12) return undefined;
  const base = typeof zone === 'number' ? asUtc - zone : zonedTimeToEpoch(wall, zone);
  return base + fraction;
}

function epoch(n: number): number | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Seconds until the year 5138; anything larger is milliseconds.
  return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
}

/**
 * Plain decimal with an optional exponent: no prefixes, `Infinity`, decimal comma or inner blanks.
 * ASCII padding is allowed, as station software writes fixed-width fields (and spreadsheets read
 * `" 125 "` as 125); non-ASCII spaces are not padding and stay non-numeric.
 */
const DECIMAL = /^[ \t\n\v\f\r]*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[ \t\n\v\f\r]*$/;

/**
 * A finite JSON number, or a string in {@link DECIMAL} notation (`" 125 "` is 125); `undefined`
 * for anything else (`PASS`, empty, `0x10`, `1,5`, `Infinity`, `1 000`).
 */
export function parseNumber(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (!DECIMAL.test(value)) return undefined;
  // Number() trims the same ASCII whitespace (and more, which DECIMAL has already refused).
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Empty and null are one label value (Prometheus cannot tell them apart): both become null. */
function optionalLabel(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

/** How one record is validated and mapped. */
interface RecordParser<S extends z.ZodType, T> {
  readonly schema: S;
  readonly map: (v: z.output<S>, skip: SkipCounter) => T | undefined;
}

function parseSlice<S extends z.ZodType, T>(
  items: readonly unknown[],
  { schema, map }: RecordParser<S, T>,
  { skip, out }: { readonly skip: SkipCounter; readonly out: T[] },
): void {
  for (const item of items) {
    const parsed = schema.safeParse(item);
    const mapped = parsed.success ? map(parsed.data, skip) : void skip.add('schema');
    if (mapped !== undefined) out.push(mapped);
  }
}

/** Record lists can hold tens of thousands of records: validate them a slice at a time. */
const PARSE_SLICE = 2000;

/**
 * Maps a record list: an answer's {@link ItemSlices} (a slice per decoding step), or an array
 * validated a slice at a time between yields to the event loop.
 */
async function parseEachCooperatively<S extends z.ZodType, T>(
  data: unknown,
  parser: RecordParser<S, T>,
  yielder: LoopYielder,
): Promise<RecordList<T>> {
  const skip = new SkipCounter();
  const records: T[] = [];
  // One sink for every slice: no object per slice, let alone per record.
  const into = { skip, out: records };
  if (data instanceof ItemSlices) {
    await data.forEachSlice((slice) => parseSlice(slice, parser, into));
    return { records, skipped: skip.counts, received: data.count };
  }
  const items = Array.isArray(data) ? data : [];
  await yielder.forEachSlice(items, PARSE_SLICE, (slice) => parseSlice(slice, parser, into));
  return { records, skipped: skip.counts, received: items.length };
}

/** The fields {@link timesOf} reads. */
interface RecordTimes {
  readonly tz?: unknown;
  readonly time_created: string | number;
  readonly time_inserted?: unknown;
}

/** A record's `time_created` and `time_inserted` read in its zone; undefined (skipped) when unreadable. */
function timesOf(
  r: RecordTimes,
  naive: NaiveTimeZone,
  skip: SkipCounter,
): { time: number; inserted?: number } | undefined {
  const zone = zoneOf(r.tz, naive);
  const time = parseTime(r.time_created, zone);
  if (time === undefined) return void skip.add('bad_time');
  const v = r.time_inserted;
  const inserted = typeof v === 'string' || typeof v === 'number' ? parseTime(v, zone) : undefined;
  return inserted === undefined ? { time } : { time, inserted };
}

/**
 * A parser of record lists (an array or an answer's slices, read between yields): each record
 * validated by `schema`, its times read (else skipped as `bad_time`), then mapped by `map`.
 */
function recordListParser<S extends z.ZodType<RecordTimes>, T>(
  schema: S,
  map: (r: z.output<S>, times: { time: number; inserted?: number }, skip: SkipCounter) => T | undefined,
) {
  return (data: unknown, yielder: LoopYielder, opts: RecordParseOptions = {}): Promise<RecordList<T>> => {
    const naive = opts.naiveTimeZone ?? 'record';
    const parser: RecordParser<S, T> = {
      schema,
      map: (r, skip) => {
        const times = timesOf(r, naive, skip);
        return times && map(r, times, skip);
      },
    };
    return parseEachCooperatively(data, parser, yielder);
  };
}

/** Maps `GET /metrics` data. */
export const parseMeasurements = recordListParser(
  metricRecordSchema,
  (r, times): MeasurementRecord => ({
    stationId: r.station_id,
    slot: optionalLabel(r.slot),
    serial: r.unit_serial,
    time: times.time,
    name: r.name,
    raw: r.value === null ? '' : String(r.value),
    value: parseNumber(r.value),
    unit: r.unit ?? '',
    type: r.type ?? null,
    upper: parseNumber(r.limit_upper),
    lower: parseNumber(r.limit_lower),
    mode: r.mode ?? null,
    ...(times.inserted === undefined ? {} : { inserted: times.inserted }),
  }),
);

/** Maps `GET /units` data. */
export const parseUnits = recordListParser(unitRecordSchema, (r, times, skip): UnitRecord | undefined => {
  const direction = r.direction.toLowerCase();
  if (direction !== 'input' && direction !== 'output') return void skip.add('bad_direction');
  return {
    stationId: r.station_id,
    slot: optionalLabel(r.slot),
    serial: r.unit_serial,
    time: times.time,
    direction,
    result: optionalLabel(r.result),
    unitType: r.unit_type ?? null,
    mode: r.mode ?? null,
    ...(times.inserted === undefined ? {} : { inserted: times.inserted }),
  };
});

/** The summary fields that are ratios; the others count units. */
const RATIO_FIELDS: ReadonlySet<keyof StationSummary> = new Set([
  'firstPassYield',
  'finalYield',
  'retryRate',
]);

/**
 * Largest ratio in either scale (0-1 or 0-100). The answer's scale is decided later with the whole
 * answer (collectors/summary/scale.ts); here only values no scale allows are refused, so that an
 * absurd one cannot tip it.
 */
const MAX_RATIO_ANY_SCALE = 100;

/**
 * Why a summary value cannot be what its field says, or `undefined` when it can: a count must be
 * a non-negative integer a double holds exactly (at most 2^53 - 1), a ratio within 0..100.
 */
function impossibleValue(key: keyof StationSummary, n: number): string | undefined {
  if (!RATIO_FIELDS.has(key)) return Number.isSafeInteger(n) && n >= 0 ? undefined : 'bad_count';
  return n >= 0 && n <= MAX_RATIO_ANY_SCALE ? undefined : 'out_of_range';
}

/**
 * Maps `GET /station/summary` data; `undefined` when it is not an object. A field that is not a
 * number (`missing_field`) or that its field cannot hold (`bad_count`, `out_of_range`) is left
 * out alone, counted in `skipped` by reason: a summary's fields are separate figures.
 */
export function parseSummary(
  data: unknown,
): { summary: StationSummary; skipped: Readonly<Record<string, number>> } | undefined {
  const parsed = summarySchema.safeParse(Array.isArray(data) && data.length === 1 ? data[0] : data);
  if (!parsed.success) return undefined;
  const summary: Record<string, number> = {};
  const skip = new SkipCounter();
  for (const [key, wire] of Object.entries(SUMMARY_FIELDS) as Array<[keyof StationSummary, string]>) {
    const v = parsed.data[wire];
    const n = typeof v === 'number' || typeof v === 'string' ? parseNumber(v) : undefined;
    const bad = n === undefined ? 'missing_field' : impossibleValue(key, n);
    if (bad === undefined) summary[key] = n as number;
    else skip.add(bad);
  }
  return { summary, skipped: skip.counts };
}

/**
 * Lines, elements and stations of the sites hierarchy checked between two yields: a malformed
 * element costs about 4 µs (its schema error), so 500 keep a slice near a record slice's time.
 */
export const SITES_SLICE = 500;

/**
 * Maps the sites hierarchy, yielding every {@link SITES_SLICE} nodes counted across the tree (so
 * many short lines are bounded too): a site is parsed in one step, but tens of thousands of
 * malformed elements under `MAX_VALUES_PER_ITEM` would otherwise block the loop.
 */
class SitesMapper {
  readonly skip = new SkipCounter();
  readonly #yielder: LoopYielder;
  #left = SITES_SLICE;

  constructor(yielder: LoopYielder) {
    this.#yielder = yielder;
  }

  /** Each of `raws` mapped by `fn`, without the skipped ones; yields when a slice's checks are done. */
  async each<T>(
    raws: readonly unknown[],
    fn: (raw: unknown) => T | undefined | Promise<T | undefined>,
  ): Promise<T[]> {
    const out: T[] = [];
    for (const raw of raws) {
      if (--this.#left <= 0) {
        this.#left = SITES_SLICE;
        await this.#yielder.yieldToLoop();
      }
      const mapped = await fn(raw);
      if (mapped !== undefined) out.push(mapped);
    }
    return out;
  }

  async site(raw: unknown): Promise<Site | undefined> {
    const s = this.#checked(siteSchema, raw);
    return s && { ...s.ref, lines: await this.each(s.data.lines, (l) => this.#line(l)) };
  }

  async #line(raw: unknown): Promise<Line | undefined> {
    const l = this.#checked(lineSchema, raw);
    return l && { ...l.ref, elements: await this.each(l.data.elements, (e) => this.#element(e)) };
  }

  async #element(raw: unknown): Promise<LineElement | undefined> {
    const e = this.#checked(elementSchema, raw);
    if (!e) return undefined;
    if (e.data.type === 'station') return { kind: 'station', ...e.ref };
    return { kind: 'group', ...e.ref, stations: await this.each(e.data.stations, (s) => this.#station(s)) };
  }

  #station(raw: unknown): StationRef | undefined {
    return this.#checked(stationRefSchema, raw)?.ref;
  }

  /** `raw` validated, with its id, name and description; undefined (counted) when malformed. */
  #checked<S extends z.ZodType<{ id: string; name: string; description?: string | null }>>(
    schema: S,
    raw: unknown,
  ): { data: z.output<S>; ref: StationRef } | undefined {
    const r = schema.safeParse(raw);
    if (!r.success) return void this.skip.add('schema');
    const { id, name, description } = r.data;
    if (!isValidId(id)) return void this.skip.add('bad_id');
    return { data: r.data, ref: { id, name, description: description ?? '' } };
  }
}

/** Maps the sites hierarchy (an array of sites); malformed nodes are skipped and counted. */
export async function parseSites(data: unknown, yielder: LoopYielder): Promise<RecordList<Site>> {
  const mapper = new SitesMapper(yielder);
  const items = Array.isArray(data) ? data : [];
  const records = await mapper.each(items, (s) => mapper.site(s));
  return { records, skipped: mapper.skip.counts, received: items.length };
}
