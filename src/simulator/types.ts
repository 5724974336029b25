/**
 * Wire and option types of the simulator. Wire types mirror the JSON shapes of the Station Data
 * Query Service contract exactly (snake_case), so tests can compare HTTP bodies with ground truth.
 */
import type { Scenario } from './faults.ts';
import type { StopKinds } from './line-stops.ts';
import type { ProcessScenario } from './process-events.ts';
import type { ProductMix } from './realistic-line.ts';

/** What every level of the /sites hierarchy has; a station inside a group has nothing more. */
interface NamedWire {
  id: string;
  name: string;
  description: string;
}

/** An element of a line: one station, or a group of parallel stations doing the same step. */
export type ElementWire =
  | (NamedWire & { type: 'station' })
  | (NamedWire & { stations: NamedWire[]; type: 'group' });

/** A production line. */
export interface LineWire extends NamedWire {
  elements: ElementWire[];
}

/** A site, exactly as one element of the /sites `data` array. */
export interface SiteWire extends NamedWire {
  lines: LineWire[];
}

/** The fields every record starts with, measurement or unit. */
interface RecordHeadWire {
  station_id: string;
  slot: string | null;
  unit_serial: string;
  time_created: string;
  tz: string | null;
  mode: string | null;
  tags: string[];
  time_inserted?: string;
}

/** One element of /units `data`. */
export interface UnitRecordWire extends RecordHeadWire {
  unit_type: string | null;
  direction: 'input' | 'output';
  result: string | null;
  metadata: null;
}

/** One element of /metrics `data`. */
export interface MetricRecordWire extends RecordHeadWire {
  name: string;
  value: string;
  unit: string;
  type: string | null;
  limit_upper: string | null;
  limit_lower: string | null;
}

/** The single `data` object of /station/summary. */
export interface SummaryWire {
  unique_units: number;
  total_input: number;
  unique_input: number;
  total_output: number;
  unique_output: number;
  first_pass: number;
  final_pass: number;
  first_pass_yield: number;
  final_yield: number;
  retry_rate: number;
}

/** Which sites a bearer token may read. */
export interface TokenScope {
  sites: 'all' | string[];
}

/** Size of the synthetic plant. */
export interface PlantScale {
  sites: number;
  linesPerSite: number;
  /** Stations per line, counting each station of a group. */
  stationsPerLine: number;
  measurementNames: number;
  /** Units entering each line per hour. */
  unitsPerHour: number;
}

/** The realistic plant and its settings (docs/simulator.md, "The realistic plant"). */
export interface RealisticPlantOptions {
  readonly kind: 'realistic';
  /** Which healthy stops the lines make (all by default); false: none, around the clock. */
  readonly stops?: StopKinds | false;
  /** Products drawn unit by unit ('interleaved', default) or run in lots of 2-8 hours ('lots'). */
  readonly productMix?: ProductMix;
}

/**
 * Which healthy plant to generate: 'textbook' (default: independent bounded-normal noise with a
 * slow sinusoidal drift, lines above their yield target, one or two products) or 'realistic'
 * (autocorrelated and skewed measurements, 2-4 products, lines at their targets, stops).
 */
export type PlantOption = 'textbook' | 'realistic' | RealisticPlantOptions;

/** Options of {@link createSimulator}. */
export interface SimulatorOptions {
  /** The healthy plant: 'textbook' (default) or 'realistic' (docs/simulator.md). */
  plant?: PlantOption;
  /** Seed of the whole plant and of fault injection; default 42. */
  seed?: number;
  /** Epoch-millisecond clock; default `Date.now`. Nothing exists after `now()`. */
  now?: () => number;
  /** Accepted bearer tokens; default `{ 'demo-token': { sites: 'all' } }`. */
  tokens?: Record<string, TokenScope>;
  scale?: Partial<PlantScale>;
  scenario?: Partial<Scenario>;
  /** Yields and retry rate as 0..1 ('ratio', default) or 0..100 ('percent'). */
  yieldScale?: 'ratio' | 'percent';
  /** Silently truncate list results to this many records, keeping the oldest; models an unpublished upstream limit. */
  maxRecords?: number;
  /** Put quotes, a backslash, a newline and non-ASCII characters into some names, for escaping tests. */
  exoticNames?: boolean;
  /** Names with markup (`<script>`, quotes, `&`) and non-ASCII text, for markup-escaping tests. */
  hostileNames?: boolean;
  /** Also accept HS256 JWTs signed with this secret (`exp` and a `sites` claim are checked). */
  jwtSecret?: string;
  /** Serve recorded data instead of the synthetic plant (see `loadRecording`). */
  replay?: Replay;
  /** Process scenario: drift off, mean shifts, trends, variance increases, timed yield drops (docs/simulator.md). */
  process?: ProcessScenario;
  /**
   * Keep about this many hours of each line's unit walks in memory, so that windows asked again
   * and again are not walked anew (long runs on a simulated clock); the answers are the same.
   */
  unitMemoHours?: number;
}

/** A station of the plant, flattened. */
export interface PlantStation {
  id: string;
  name: string;
  siteId: string;
  lineId: string;
  groupId?: string;
  /** Index of the station's element within its line (0-based); stations of one group share it. */
  position: number;
}

/** The synthetic plant. */
export interface Plant {
  /** The /sites `data` array for a token that may read every site. */
  sites: SiteWire[];
  stations: PlantStation[];
  measurementNames: string[];
}

/** One request received by the simulator (outside `/_sim/*`). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The raw query string without the leading `?`. */
  rawQuery: string;
  /** The query as a multi-map, in order of appearance. */
  query: Record<string, string[]>;
  /** Request headers, names lower-case. */
  headers: Record<string, string>;
  /** Response status; 0 while pending, 499 when the client aborted first. */
  status: number;
  /** Clock value (epoch ms) when the request arrived. */
  receivedAt: number;
}

/** The data files of a recording, by role. */
export type RecordingPart = 'sites' | 'units' | 'metrics' | 'summaries';

/**
 * `meta.json` of a recording, written last: the size and SHA-256 of each data file tell a complete
 * recording from a truncated one or from files of two recordings.
 */
export interface RecordingMeta {
  format: 2;
  id: string;
  files: Record<RecordingPart, { bytes: number; sha256: string }>;
  /** The recorded window [from, to), ISO 8601. */
  from: string;
  to: string;
  measurementNames: string[];
}

/** One recorded summary answer: the request's stations and window, and what the upstream said. */
export interface RecordedSummary {
  station_ids: string[];
  from: string;
  to: string;
  summary: Partial<SummaryWire>;
}

/** A recording, loaded. */
export interface Recording {
  meta: RecordingMeta;
  sites: SiteWire[];
  units: UnitRecordWire[];
  metrics: MetricRecordWire[];
  summaries: RecordedSummary[];
}

/** A recording to serve, and whether to move its end to the simulator's `now()` at start. */
export interface Replay {
  recording: Recording;
  shiftToNow?: boolean;
}

/** A unit record with its time and when it became visible (null: at once). */
export interface TimedUnitRecord {
  readonly t: number;
  readonly inserted: number | null;
  readonly rec: UnitRecordWire;
}

export type { HostileAnswer, Scenario } from './faults.ts';
