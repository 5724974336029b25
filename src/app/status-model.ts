/**
 * Builds the status page's model from what the exporter already holds: the scheduler's
 * per-collector status and topology, the units store's latest unit times (a read-only view
 * the units job offers through its context), and the ring of recent upstream errors.
 */
import type { FlaggedChart, SummaryWindowProgress } from '../collectors/collector.ts';
import type { Topology } from '../model/topology.ts';
import type { CollectorStatus } from '../scheduler/status.ts';
import type { StatusLine, StatusModel, StatusSite, StatusStep } from '../server/status-page.ts';
import type { RecentErrors } from './recent-errors.ts';

/** What the status model reads. Every member is read-only. */
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

/** A slot for the summary job's view of its windows' progress: empty until offered. */
export interface SummaryWindows {
  offer(read: () => readonly SummaryWindowProgress[]): void;
  read(): readonly SummaryWindowProgress[];
}

/** Creates an empty {@link SummaryWindows}. */
export function createSummaryWindows(): SummaryWindows {
  let view: (() => readonly SummaryWindowProgress[]) | undefined;
  return {
    offer(read) {
      view = read;
    },
    read: () => view?.() ?? [],
  };
}

/** A slot for the control charts' read-only view of flagged charts: empty until offered. */
export interface FlaggedCharts {
  offer(read: () => readonly FlaggedChart[]): void;
  read(): readonly FlaggedChart[];
}

/** Creates an empty {@link FlaggedCharts}. */
export function createFlaggedCharts(): FlaggedCharts {
  let view: (() => readonly FlaggedChart[]) | undefined;
  return {
    offer(read) {
      view = read;
    },
    read: () => view?.() ?? [],
  };
}

/** A slot for the units store's read-only view: empty until the units job offers it. */
export interface LastUnitTimes {
  offer(read: (stationId: string) => number | undefined): void;
  read(stationId: string): number | undefined;
}

/** Creates an empty {@link LastUnitTimes}. */
export function createLastUnitTimes(): LastUnitTimes {
  let view: ((stationId: string) => number | undefined) | undefined;
  return {
    offer(read) {
      view = read;
    },
    read: (id) => view?.(id),
  };
}

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
    let site = sites.get(s.site.id);
    if (!site) {
      site = { id: s.site.id, name: s.site.name, lines: [] };
      sites.set(s.site.id, site);
    }
    let line = lines.get(s.line.id);
    if (!line) {
      line = { id: s.line.id, name: s.line.name, steps: [] };
      lines.set(s.line.id, line);
      site.lines.push(line);
    }
    const stepKey = `${s.line.id}/${s.position}`;
    let step = steps.get(stepKey);
    if (!step) {
      step = {
        position: s.position,
        name: s.group?.name ?? s.name,
        group: s.group !== undefined,
        stations: [],
      };
      steps.set(stepKey, step);
      line.steps.push(step);
    }
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
