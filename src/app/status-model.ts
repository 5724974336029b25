/** Builds the status page's model from what the exporter already holds. */
import type { FlaggedChart, SummaryWindowProgress } from '../collectors/collector.ts';
import type { Topology } from '../model/topology.ts';
import type { CollectorStatus } from '../scheduler/status.ts';
import type { StatusLine, StatusModel, StatusSite, StatusStep } from '../server/status-page.ts';
import { getOrCreate } from '../util/maps.ts';
import type { RecentErrors } from './recent-errors.ts';

/** What the status model reads. */
export interface StatusSources {
  readonly version: string;
  readonly upstream: string;
  readonly wallClock: () => number;
  readonly status: () => readonly CollectorStatus[];
  readonly topology: () => Topology | undefined;
  readonly ready: () => boolean;
  readonly lastUnitTime: (stationId: string) => number | undefined;
  readonly errors: RecentErrors;
  /** Stations the upstream refused (403), once something tracks them; their rows are marked. */
  readonly refused?: () => readonly string[];
  /** The planner's shortest and longest refresh per collector name (ms). */
  readonly plannedRefresh?: () => ReadonlyMap<string, { minMs: number; maxMs: number }>;
  /** Control charts whose baseline is flagged, once the measurements job offers them. */
  readonly flaggedCharts?: () => readonly FlaggedChart[];
  /** Each summary window's progress, once the summary job offers it. */
  readonly windows?: () => readonly SummaryWindowProgress[];
}

/**
 * A read-only view that one job offers to readers outside it (the status page, another
 * collector): reads give `empty` until the job offers its view, then what the view gives.
 * `offer` and `read` are bound, so that they can be handed on as plain functions.
 */
export class OfferedView<Args extends unknown[], Result> {
  readonly #empty: Result;
  #view: ((...args: Args) => Result) | undefined;

  /** The slot's types come from where it is kept (a {@link LastUnitTimes}), not from `empty`. */
  constructor(empty: NoInfer<Result>) {
    this.#empty = empty;
  }

  readonly offer = (view: (...args: Args) => Result): void => {
    this.#view = view;
  };

  readonly read = (...args: Args): Result => this.#view?.(...args) ?? this.#empty;
}

/** The summary job's view of its windows' progress. */
export type SummaryWindows = OfferedView<[], readonly SummaryWindowProgress[]>;

/** The control charts' view of the charts flagged at the last poll. */
export type FlaggedCharts = OfferedView<[], readonly FlaggedChart[]>;

/** The units store's view of each station's latest unit time. */
export type LastUnitTimes = OfferedView<[stationId: string], number | undefined>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K] };

/** Sites, lines and steps in topology order; a group's stations form one step. */
function tree(
  topology: Topology,
  lastUnitTime: StatusSources['lastUnitTime'],
  refused: ReadonlySet<string>,
): StatusSite[] {
  const sites = new Map<string, Mutable<StatusSite>>();
  const lines = new Map<string, Mutable<StatusLine>>();
  const steps = new Map<string, Mutable<StatusStep>>();
  for (const s of topology.stations) {
    const site = getOrCreate(sites, s.site.id, () => ({ id: s.site.id, name: s.site.name, lines: [] }));
    const line = getOrCreate(lines, s.line.id, () => {
      const l = { id: s.line.id, name: s.line.name, steps: [] };
      site.lines.push(l);
      return l;
    });
    const step = getOrCreate(steps, `${s.line.id}/${s.position}`, () => {
      const name = s.group?.name ?? s.name;
      const st = { position: s.position, name, group: s.group !== undefined, stations: [] };
      line.steps.push(st);
      return st;
    });
    step.stations.push({
      id: s.id,
      name: s.name,
      refused: refused.has(s.id.toLowerCase()),
      ...optional('lastUnitTime', lastUnitTime(s.id)),
    });
  }
  for (const line of lines.values()) line.steps.sort((a, b) => a.position - b.position);
  return [...sites.values()];
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The model of the status page, now. */
export function buildStatusModel(src: StatusSources): StatusModel {
  const topology = src.topology();
  const refusedIds = (src.refused?.() ?? []).map((id) => id.toLowerCase());
  const refused = new Set(refusedIds);
  const planned = src.plannedRefresh?.();
  const missing = topology?.missingStationIds ?? [];
  return {
    now: src.wallClock(),
    version: src.version,
    upstream: src.upstream,
    ready: src.ready(),
    ...optional('sites', topology ? tree(topology, src.lastUnitTime, refused) : undefined),
    refused: [
      ...missing.map((id) => ({ id, why: 'named in the config, not visible to the token in /sites' })),
      ...refusedIds
        .filter((id) => !missing.includes(id))
        .map((id) => ({ id, why: 'listed in /sites, but its data is refused (403)' })),
    ],
    errors: src.errors.kinds().map((k) => ({
      endpoint: k.endpoint,
      reason: k.reason,
      ...optional('status', k.status),
      count: k.count,
      lastAt: k.last.at,
      lastMessage: k.last.message,
    })),
    recentErrors: src.errors.recent(),
    flaggedCharts: src.flaggedCharts?.() ?? [],
    windows: src.windows?.() ?? [],
    collectors: src.status().map((c) => ({ ...c, ...optional('plannedRefresh', planned?.get(c.name)) })),
  };
}
