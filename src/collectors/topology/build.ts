/**
 * Turns the sites hierarchy into label sets. Stations carry `station_id`; sites, lines and groups
 * only a name, so clashing siblings get a suffix from their id ({@link suffixed}): unique by
 * construction, and stable across polls and restarts while the siblings stay the same.
 */
import { LabelSet } from '../../exposition/model.ts';
import type { Entity, NameFilter, Selection, StationNode, Topology } from '../../model/topology.ts';
import type { Line, LineElement, Site, StationRef } from '../../upstream/types.ts';

interface Named {
  readonly id: string;
  readonly name: string;
}

/** A clashing sibling's names to try, in order; the last form never runs out. */
function* suffixed(item: Named): Generator<string> {
  yield `${item.name} (${item.id.slice(-6)})`;
  yield `${item.name} (${item.id})`;
  for (let n = 2; ; n++) yield `${item.name} (${item.id} ${n})`;
}

/** Orders clashing siblings by id, then by their place, so that the upstream's order does not matter. */
const byId = <T extends Named>(a: { item: T; index: number }, b: { item: T; index: number }) =>
  a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : a.index - b.index;

/**
 * Unique display names among siblings; counts renames into `stats`. A name held by one sibling is
 * kept as it is and reserved first, so that a literal "Plant (111111)" keeps its name and a
 * renamed "Plant" takes the next free form instead.
 */
function uniqueNames<T extends Named>(items: readonly T[], stats: { renamed: number }): Map<T, string> {
  const counts = new Map<string, number>();
  for (const it of items) counts.set(it.name, (counts.get(it.name) ?? 0) + 1);
  const out = new Map<T, string>();
  const taken = new Set<string>();
  const clashing: Array<{ item: T; index: number }> = [];
  items.forEach((item, index) => {
    if ((counts.get(item.name) ?? 0) > 1) clashing.push({ item, index });
    else {
      out.set(item, item.name);
      taken.add(item.name);
    }
  });
  for (const { item } of clashing.sort(byId)) {
    stats.renamed++;
    for (const name of suffixed(item)) {
      if (taken.has(name)) continue;
      taken.add(name);
      out.set(item, name);
      break;
    }
  }
  return out;
}

const matches = (patterns: readonly RegExp[], item: Named) =>
  patterns.some((p) => p.test(item.name) || p.test(item.id));

function kept(include: readonly RegExp[], exclude: readonly RegExp[], item: Named): boolean {
  return (include.length === 0 || matches(include, item)) && !matches(exclude, item);
}

/** The stations of an element with their group, if any. */
function elementStations(el: LineElement): Array<{ station: StationRef; group?: Named }> {
  if (el.kind === 'station') return [{ station: el }];
  return el.stations.map((station) => ({ station, group: { id: el.id, name: el.name } }));
}

/** Ids in order, each once. */
const distinct = (ids: readonly string[]): string[] => [...new Set(ids)];

/** Every station id of a line's elements, in line order. */
function lineStationIds(line: Line): string[] {
  return distinct(line.elements.flatMap((el) => elementStations(el).map((s) => s.station.id)));
}

/**
 * Index of the line's last element that holds a station: where units leave the line. Its
 * stations are marked as the line's output even when filters leave them out, so that a
 * filtered line has no output station rather than a wrong one.
 */
function outputIndex(line: Line): number {
  return line.elements.findLastIndex((el) => elementStations(el).length > 0);
}

/** Builds the topology from discovered sites and the configured selection. */
export function buildTopology(
  sites: readonly Site[],
  selection: Selection,
  missingSiteIds: string[] = [],
): Topology {
  const { include, exclude } = selection;
  const stats = { renamed: 0 };
  const f: FilterContext = {
    wanted: new Set(selection.stationIds),
    seen: new Set(),
    include,
    exclude,
    stats,
  };
  const out: Built = { stations: [], groups: [], lines: [] };
  const siteEntities: Entity[] = [];
  const siteNames = uniqueNames(sites, stats);
  for (const site of sites) {
    if (!kept(include.sites, exclude.sites, site)) continue;
    const entity = buildSite(site, { siteName: siteNames.get(site) ?? site.name, f, out });
    if (entity) siteEntities.push(entity);
  }
  const missingStationIds = selection.stationIds.filter((id) => !f.seen.has(id));
  return { ...out, sites: siteEntities, missingStationIds, missingSiteIds, renamed: stats.renamed };
}

interface Built {
  readonly stations: StationNode[];
  readonly groups: Entity[];
  readonly lines: Entity[];
}

/** Adds a site's kept lines to `out`; undefined when none of its stations is kept. */
function buildSite(
  site: Site,
  { siteName, f, out }: { readonly siteName: string; readonly f: FilterContext; readonly out: Built },
): Entity | undefined {
  const siteLabels = LabelSet.of({ site: siteName });
  const siteStations: string[] = [];
  // The site's full station set includes lines the filters leave out.
  const siteAll = distinct(site.lines.flatMap(lineStationIds));
  const lineNames = uniqueNames(site.lines, f.stats);
  for (const line of site.lines) {
    if (!kept(f.include.lines, f.exclude.lines, line)) continue;
    const lineName = lineNames.get(line) ?? line.name;
    const lineLabels = siteLabels.with('line', lineName);
    const built = buildLine(line, { site, siteName, lineLabels, lineName }, f);
    if (built.stations.length === 0) continue;
    out.stations.push(...built.stations);
    out.groups.push(...built.groups);
    const ids = built.stations.map((s) => s.id);
    out.lines.push({
      level: 'line',
      id: line.id,
      stationIds: ids,
      allStationIds: lineStationIds(line),
      labels: lineLabels,
      site: { id: site.id, name: siteName },
      line: { id: line.id, name: lineName },
    });
    siteStations.push(...ids);
  }
  if (siteStations.length === 0) return undefined;
  return { level: 'site', id: site.id, stationIds: siteStations, allStationIds: siteAll, labels: siteLabels };
}

interface LineContext {
  readonly site: Site;
  readonly siteName: string;
  readonly lineName: string;
  readonly lineLabels: LabelSet;
}

interface FilterContext {
  readonly wanted: ReadonlySet<string>;
  readonly seen: Set<string>;
  readonly include: NameFilter;
  readonly exclude: NameFilter;
  readonly stats: { renamed: number };
}

function buildLine(
  line: Line,
  ctx: LineContext,
  f: FilterContext,
): { stations: StationNode[]; groups: Entity[] } {
  const stations: StationNode[] = [];
  const groups: Entity[] = [];
  // A group without stations exports nothing (a left-out element's placeholder among them).
  const groupNames = uniqueNames(
    line.elements.filter((e) => e.kind === 'group' && e.stations.length > 0),
    f.stats,
  );
  const last = outputIndex(line);
  line.elements.forEach((el, index) => {
    const members: StationNode[] = [];
    const position = index + 1;
    const lineOutput = index === last;
    const groupName = el.kind === 'group' ? (groupNames.get(el) ?? el.name) : undefined;
    for (const { station, group } of elementStations(el)) {
      if (!taken(station, f)) continue;
      members.push(
        stationNode(station, ctx, {
          line,
          position,
          lineOutput,
          group: group && { id: group.id, name: groupName ?? group.name },
        }),
      );
    }
    stations.push(...members);
    if (el.kind === 'group' && members.length > 0) {
      const labels = ctx.lineLabels.with('group', groupName ?? el.name);
      groups.push({
        level: 'group',
        id: el.id,
        stationIds: members.map((m) => m.id),
        allStationIds: distinct(el.stations.map((st) => st.id)),
        labels,
      });
    }
  });
  return { stations, groups };
}

/**
 * Whether a station is exported here: not met before (a station listed twice is exported once),
 * wanted, and kept by the filters. Marks it met.
 */
function taken(station: StationRef, f: FilterContext): boolean {
  if (f.seen.has(station.id)) return false;
  if (f.wanted.size > 0 && !f.wanted.has(station.id)) return false;
  if (!kept(f.include.stations, f.exclude.stations, station)) return false;
  f.seen.add(station.id);
  return true;
}

interface StationPlace {
  readonly line: Line;
  /** 1-based. */
  readonly position: number;
  /** See {@link outputIndex}. */
  readonly lineOutput: boolean;
  readonly group: { id: string; name: string } | undefined;
}

function stationNode(
  station: StationRef,
  ctx: LineContext,
  { line, position, lineOutput, group }: StationPlace,
): StationNode {
  let labels = ctx.lineLabels.with('station', station.name).with('station_id', station.id);
  if (group) labels = labels.with('group', group.name);
  const infoLabels = labels
    .with('site_id', ctx.site.id)
    .with('line_id', line.id)
    .with('group_id', group?.id ?? '')
    .with('position', String(position))
    .with('description', station.description);
  return {
    level: 'station',
    id: station.id,
    stationIds: [station.id],
    allStationIds: [station.id],
    labels,
    name: station.name,
    description: station.description,
    site: { id: ctx.site.id, name: ctx.siteName },
    line: { id: line.id, name: ctx.lineName },
    ...(group ? { group } : {}),
    position,
    lineOutput,
    infoLabels,
  };
}
