import { MAX_ATTEMPTS } from './attempts.ts';
import { failureExplainers, type MeasurementSpec, measurementCatalog } from './measurements.ts';
import { EXOTIC, HOSTILE, LINE_KINDS, PRODUCTS, SITE_TEMPLATES, STEP_NAMES, stationName } from './names.ts';
import type { MeasurementEvent, ProcessScenario, StationEvent, YieldDrop } from './process-events.ts';
import { hashString, hexId, Purpose, pick, uniform } from './random.ts';
import { type RealisticLine, type RealisticRates, realisticLine } from './realistic-line.ts';
import type {
  ElementWire,
  LineWire,
  Plant,
  PlantOption,
  PlantScale,
  PlantStation,
  RealisticPlantOptions,
  SiteWire,
} from './types.ts';

/** Default plant size. */
export const DEFAULT_SCALE: PlantScale = {
  sites: 2,
  linesPerSite: 2,
  stationsPerLine: 6,
  measurementNames: 8,
  unitsPerHour: 30,
};

/** Unit indexes count from this instant, so any window after it can be generated. */
const FLOW_EPOCH_MS = Date.UTC(2020, 0, 1);

/** Everything the flow needs to know about a station. */
export interface StationModel extends PlantStation {
  hash: number;
  tz: string | null;
  slots: number;
  reportsMode: boolean;
  tags: string[];
  /** Records of this station carry `time_inserted`. */
  insertLag: boolean;
  measures: MeasurementSpec[];
  /** Indexes into `measures` of those that can explain a failure. */
  explainers: number[];
  /** Injected changes of this station's measurements (process scenario). */
  events?: MeasurementEvent[];
  /** Silences and failure-rate changes of this station (process scenario). */
  stationEvents?: StationEvent[];
  /** On the realistic plant: the station's own failure rates (else its element's, retests 30 %). */
  rates?: RealisticRates;
}

/** One step of a line: a single station or a group of parallel ones. */
interface ElementModel {
  stations: StationModel[];
  cycleMs: number;
  failRate: number;
}

/** A line and the timing of the units flowing along it. */
export interface LineModel {
  hash: number;
  serialPrefix: string;
  products: string[];
  periodMs: number;
  epochMs: number;
  elements: ElementModel[];
  /** Upper bound of the time between a unit's entry and its last record, stops left out. */
  maxSpanMs: number;
  /** On the realistic plant: products' weights, stops, the yield designed for. */
  realistic?: RealisticLine;
}

/** The plant as data plus the internal model used to generate records. */
export interface PlantModel {
  plant: Plant;
  lines: LineModel[];
  stationsById: Map<string, StationModel & { line: LineModel }>;
}

interface Ctx {
  seed: number;
  scale: PlantScale;
  exotic: boolean;
  hostile: boolean;
  realistic: RealisticPlantOptions | null;
  catalog: MeasurementSpec[];
  used: Set<string>;
  stations: StationModel[];
}

function uniqueId(ctx: Ctx, path: string): string {
  for (let salt = 0; ; salt++) {
    const id = hexId(ctx.seed, path, salt);
    if (!ctx.used.has(id)) {
      ctx.used.add(id);
      return id;
    }
  }
}

// Consecutive windows of the catalog, so every name is measured somewhere when there are
// enough stations, and small plants give each station a larger share.
function measuresOf(ctx: Ctx, globalIndex: number, totalStations: number): MeasurementSpec[] {
  const n = ctx.catalog.length;
  const per = Math.min(n, Math.max(4, Math.ceil(n / totalStations)));
  return Array.from({ length: per }, (_, i) => ctx.catalog[(globalIndex * per + i) % n]!);
}

function buildStation(
  ctx: Ctx,
  base: PlantStation,
  at: { readonly path: string; readonly total: number },
): StationModel {
  const { path, total } = at;
  const u = (k: number) => uniform(ctx.seed, Purpose.plant, hashString(path), k);
  const measures = measuresOf(ctx, ctx.stations.length, total);
  const station: StationModel = {
    ...base,
    hash: hashString(base.id),
    tz: null,
    slots: u(1) < 0.4 ? 2 + Math.floor(u(2) * 3) : 0,
    reportsMode: u(3) >= 0.15,
    tags: u(4) < 0.5 ? [`fw:${1 + Math.floor(u(5) * 3)}.${Math.floor(u(6) * 10)}.0`] : [],
    insertLag: u(7) < 0.4,
    measures,
    explainers: failureExplainers(measures),
  };
  ctx.stations.push(station);
  return station;
}

function buildElements(ctx: Ctx, line: { id: string; siteId: string; path: string; name: string }) {
  const wires: ElementWire[] = [];
  const models: Array<{ size: number; stations: StationModel[] }> = [];
  const total = ctx.scale.sites * ctx.scale.linesPerSite * ctx.scale.stationsPerLine;
  let remaining = ctx.scale.stationsPerLine;
  for (let e = 0; remaining > 0; e++) {
    const path = `${line.path}/element/${e}`;
    const u = uniform(ctx.seed, Purpose.plant, hashString(path));
    const wantGroup = e === 1 ? models.every((m) => m.size === 1) : u < 0.25;
    const size = remaining >= 2 && wantGroup ? Math.min(remaining, u < 0.5 || e === 1 ? 2 : 3) : 1;
    remaining -= size;
    const round = Math.floor(e / STEP_NAMES.length);
    const step = `${STEP_NAMES[e % STEP_NAMES.length]}${round ? ` ${round + 1}` : ''}`;
    const elementId = uniqueId(ctx, path);
    const stations = Array.from({ length: size }, (_, i) => {
      const spath = size === 1 ? path : `${path}/station/${i}`;
      const id = size === 1 ? elementId : uniqueId(ctx, spath);
      const name =
        e === 0 && i === 0
          ? firstName(ctx, 'station', stationName(step, i, size))
          : stationName(step, i, size);
      const base: PlantStation = { id, name, siteId: line.siteId, lineId: line.id, position: e };
      if (size > 1) base.groupId = elementId;
      return buildStation(ctx, base, { path: spath, total: total });
    });
    models.push({ size, stations });
    const description = `${step} on ${line.name}`;
    const first = stations[0]!;
    wires.push(
      size === 1
        ? { id: first.id, name: first.name, description, type: 'station' }
        : {
            id: elementId,
            name: `${step} Cell`,
            description: `${size} parallel ${step} stations on ${line.name}`,
            stations: stations.map((s) => ({ id: s.id, name: s.name, description })),
            type: 'group',
          },
    );
  }
  return { wires, models };
}

function buildLineModel(
  ctx: Ctx,
  path: string,
  line: {
    readonly serialPrefix: string;
    readonly tz: string;
    readonly models: { size: number; stations: StationModel[] }[];
  },
): LineModel {
  const { serialPrefix, models } = line;
  const u = (k: number) => uniform(ctx.seed, Purpose.plant, hashString(path), 100 + k);
  const periodMs = 3_600_000 / ctx.scale.unitsPerHour;
  const elements: ElementModel[] = models.map((m, i) => ({
    stations: m.stations,
    // A group exists because its step is slower than the line's pace.
    cycleMs: Math.round(periodMs * m.size * (0.25 + 0.5 * u(2 * i))),
    failRate: 0.01 + 0.07 * u(2 * i + 1),
  }));
  const maxSpanMs = elements.reduce(
    (sum, el) => sum + 0.3 * periodMs + MAX_ATTEMPTS * (el.cycleMs * 1.15 + 0.5 * periodMs),
    periodMs,
  );
  // A realistic line makes 2-4 products, a textbook one 1-2.
  const productCount = ctx.realistic ? 2 + Math.floor(u(-4) * 3) : 1 + Math.floor(u(-1) * 2);
  const first = Math.floor(u(-2) * PRODUCTS.length);
  const products = Array.from({ length: productCount }, (_, i) => PRODUCTS[(first + i) % PRODUCTS.length]!);
  const model: LineModel = {
    hash: hashString(path),
    serialPrefix,
    products,
    periodMs,
    epochMs: FLOW_EPOCH_MS + Math.floor(u(-3) * periodMs),
    elements,
    maxSpanMs: Math.ceil(maxSpanMs),
  };
  if (ctx.realistic === null) return model;
  const { line: realistic, rates } = realisticLine({
    seed: ctx.seed,
    path,
    lineHash: model.hash,
    tz: line.tz,
    productCount: products.length,
    elements,
    stops: ctx.realistic.stops ?? {},
    productMix: ctx.realistic.productMix ?? 'interleaved',
  });
  model.realistic = realistic;
  elements.forEach((el, e) => {
    for (const [i, st] of el.stations.entries()) st.rates = rates[e]![i]!;
  });
  return model;
}

/** The name of the plant's first site, line or station: hostile or exotic when the plant asks for it. */
function firstName(ctx: Ctx, kind: 'site' | 'line' | 'station', plain: string): string {
  if (ctx.hostile) return HOSTILE[kind];
  return ctx.exotic ? EXOTIC[kind] : plain;
}

function buildSite(ctx: Ctx, s: number, lines: LineModel[]): SiteWire {
  const template = SITE_TEMPLATES[s % SITE_TEMPLATES.length]!;
  const round = Math.floor(s / SITE_TEMPLATES.length);
  const suffix = round ? ` ${round + 1}` : '';
  const path = `site/${s}`;
  const plain = `Plant ${template.city}${suffix}`;
  const site: SiteWire = {
    id: uniqueId(ctx, path),
    name: s === 0 ? firstName(ctx, 'site', plain) : plain,
    description: `Electronics manufacturing site in ${template.city}${suffix}`,
    lines: [],
  };
  for (let l = 0; l < ctx.scale.linesPerSite; l++)
    site.lines.push(buildLine(ctx, { site, s, l, template, round }, lines));
  return site;
}

/** The names of line `l` of site `s`: the hostile one first, the exotic one second. */
function lineName(ctx: Ctx, at: { readonly s: number; readonly l: number }, plain: string): string {
  if (at.s !== 0) return plain;
  if (ctx.hostile && at.l === 0) return HOSTILE.line;
  return ctx.exotic && at.l === 1 ? EXOTIC.line : plain;
}

/** Line `l` of site `s`, its stations' time zones, and its model appended to `lines`. */
function buildLine(
  ctx: Ctx,
  at: {
    readonly site: SiteWire;
    readonly s: number;
    readonly l: number;
    readonly template: (typeof SITE_TEMPLATES)[number];
    readonly round: number;
  },
  lines: LineModel[],
): LineWire {
  const { site, l, template, round } = at;
  const suffix = round ? ` ${round + 1}` : '';
  const lpath = `site/${at.s}/line/${l}`;
  const kind = pick(LINE_KINDS, uniform(ctx.seed, Purpose.plant, hashString(lpath)));
  const line: LineWire = {
    id: uniqueId(ctx, lpath),
    name: lineName(ctx, at, `${kind.name} ${l + 1}`),
    description: `${kind.what}, ${template.city}${suffix}`,
    elements: [],
  };
  const firstStation = ctx.stations.length;
  const { wires, models } = buildElements(ctx, {
    id: line.id,
    siteId: site.id,
    path: lpath,
    name: line.name,
  });
  line.elements = wires;
  for (const st of ctx.stations.slice(firstStation))
    st.tz = uniform(ctx.seed, Purpose.plant, st.hash, 9) < 0.15 ? null : template.tz;
  const serialPrefix = `${template.code}${round ? round + 1 : ''}${l + 1}`;
  lines.push(buildLineModel(ctx, lpath, { serialPrefix, tz: template.tz, models }));
  return line;
}

/** Which kinds of names (names.ts) the plant uses besides the plain ones (default neither). */
export interface PlantNames {
  readonly exotic?: boolean;
  readonly hostile?: boolean;
}

/** The realistic plant's settings, or null for the textbook plant. */
function realisticOf(plant: PlantOption | undefined): RealisticPlantOptions | null {
  if (plant === undefined || plant === 'textbook') return null;
  return plant === 'realistic' ? { kind: 'realistic' } : plant;
}

/**
 * Builds the synthetic plant; a pure function of seed, scale, the kinds of names and the kind of
 * plant. The realistic plant has the same sites, lines, stations and names as the textbook one of
 * the same seed and scale; its products, rates, stops and values differ.
 */
export function buildPlant(
  seed: number,
  scale: PlantScale,
  names: PlantNames = {},
  plant: PlantOption = 'textbook',
): PlantModel {
  const { exotic = false, hostile = false } = names;
  const realistic = realisticOf(plant);
  const catalog = measurementCatalog(seed, scale.measurementNames, { exotic, realistic: realistic !== null });
  const ctx: Ctx = { seed, scale, exotic, hostile, realistic, catalog, used: new Set(), stations: [] };
  const lines: LineModel[] = [];
  const sites = Array.from({ length: scale.sites }, (_, s) => buildSite(ctx, s, lines));
  const stationsById = new Map<string, StationModel & { line: LineModel }>();
  for (const line of lines)
    for (const el of line.elements)
      for (const st of el.stations) stationsById.set(st.id, Object.assign(st, { line }));
  const data = { sites, stations: stationsOf(sites), measurementNames: catalog.map((m) => m.name) };
  return { plant: data, lines, stationsById };
}

/** The flat station list of a /sites hierarchy, in plant order. */
export function stationsOf(sites: readonly SiteWire[]): PlantStation[] {
  return sites.flatMap((site) =>
    site.lines.flatMap((line) =>
      line.elements.flatMap((el, position) => {
        const at = { siteId: site.id, lineId: line.id };
        return el.type === 'group'
          ? el.stations.map((s) => ({ id: s.id, name: s.name, ...at, groupId: el.id, position }))
          : [{ id: el.id, name: el.name, ...at, position }];
      }),
    ),
  );
}

/**
 * Applies a scenario to a freshly built plant model; yield drops are returned, to be applied to
 * the records as served. An event naming a station or line the plant lacks throws.
 */
export function applyProcess(model: PlantModel, scenario: ProcessScenario | undefined): YieldDrop[] {
  if (scenario === undefined) return [];
  if (scenario.drift === false) {
    for (const st of model.stationsById.values())
      st.measures = st.measures.map((m) => ({ ...m, driftAmp: 0 }));
  }
  const drops: YieldDrop[] = [];
  for (const e of scenario.events ?? []) {
    if (e.kind === 'yield_drop') {
      if (!hasLine(model, e.lineId)) throw new Error(`process event: no line ${e.lineId}`);
      const { kind: _, ...drop } = e;
      drops.push(drop);
    } else addStationEvent(model, e);
  }
  return drops;
}

/** Adds a measurement or station event to its station. */
function addStationEvent(model: PlantModel, e: MeasurementEvent | StationEvent): void {
  const st = model.stationsById.get(e.stationId.toLowerCase());
  if (st === undefined) throw new Error(`process event: no station ${e.stationId}`);
  if (e.kind === 'silence' || e.kind === 'fail_rate') st.stationEvents = [...(st.stationEvents ?? []), e];
  else st.events = [...(st.events ?? []), e];
}

function hasLine(model: PlantModel, lineId: string): boolean {
  return [...model.stationsById.values()].some((st) => st.lineId === lineId.toLowerCase());
}
