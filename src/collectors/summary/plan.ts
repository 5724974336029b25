/**
 * Which summary requests a poll sends: one per level entity and window with all its station ids,
 * so that unique counts and yields come from the upstream, never combined locally. Entities with
 * the same station set share one request.
 */
import type { WindowSpec } from '../../config/schema.ts';
import type { LabelSet } from '../../exposition/model.ts';
import type { Entity, Level, Topology } from '../../model/topology.ts';
import { windowBounds } from '../../time/windows.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';

/** One exported (level, entity, window): the series it fills and the request that answers it. */
export interface SummarySlot {
  /** Identity across polls. */
  readonly key: string;
  readonly level: Level;
  readonly labels: LabelSet;
  /** Key of the request in {@link SummaryPlan.requests}. */
  readonly request: string;
  readonly window: string;
  /** Position among its level's entities, and their count, for spreading refreshes. */
  readonly index: number;
  readonly count: number;
}

/** A distinct summary request. */
export interface SummaryRequest {
  readonly stationIds: readonly string[];
  readonly from: Date;
  readonly to: Date;
}

/** A poll's requests, in topology order; filled by {@link planSummaries} alone. */
export interface SummaryPlan {
  readonly slots: SummarySlot[];
  readonly requests: Map<string, SummaryRequest>;
  /** Entities left out per level because their URL would be longer than the limit. */
  readonly skipped: Map<Level, number>;
}

export interface SummaryPlanOptions {
  readonly levels: readonly Level[];
  readonly windows: readonly WindowSpec[];
  readonly maxUrlLength: number;
  readonly urlLength: (request: SummaryRequest) => number;
  readonly yielder: LoopYielder;
}

/** Slots planned per slice: each measures its URL, and 4,000 took some 50 ms in one go. */
const SLOTS_PER_SLICE = 500;

/** The level's entities. */
export function entitiesOf(
  topology: Pick<Topology, 'stations' | 'groups' | 'lines' | 'sites'>,
  level: Level,
): readonly Entity[] {
  switch (level) {
    case 'station':
      return topology.stations;
    case 'group':
      return topology.groups;
    case 'line':
      return topology.lines;
    case 'site':
      return topology.sites;
  }
}

/** Plans one poll, in slices. `now` fixes every window's end for the whole poll. */
export async function planSummaries(
  topology: Topology,
  opts: SummaryPlanOptions,
  now: Date,
): Promise<SummaryPlan> {
  const plan: SummaryPlan = { slots: [], requests: new Map(), skipped: new Map() };
  let planned = 0;
  for (const win of opts.windows) {
    const bounds = windowBounds(win, now);
    for (const level of opts.levels) {
      const entities = entitiesOf(topology, level);
      for (const [index, entity] of entities.entries()) {
        if (++planned % SLOTS_PER_SLICE === 0) await opts.yielder.yieldToLoop();
        planSlot(plan, { win, bounds, level, entity, index, count: entities.length }, opts);
      }
    }
  }
  return plan;
}

/** One entity's slot of one window, and its request; left out when its URL is too long. */
function planSlot(
  plan: SummaryPlan,
  slot: {
    readonly win: WindowSpec;
    readonly bounds: { readonly from: Date; readonly to: Date };
    readonly level: Level;
    readonly entity: Entity;
    readonly index: number;
    readonly count: number;
  },
  opts: Pick<SummaryPlanOptions, 'urlLength' | 'maxUrlLength'>,
): void {
  const { win, level, entity } = slot;
  const { from, to } = slot.bounds;
  const request = { stationIds: entity.stationIds, from, to };
  if (opts.urlLength(request) > opts.maxUrlLength) {
    plan.skipped.set(level, (plan.skipped.get(level) ?? 0) + 1);
    return;
  }
  const reqKey = `${entity.stationIds.join(',')}|${from.getTime()}|${to.getTime()}`;
  if (!plan.requests.has(reqKey)) plan.requests.set(reqKey, request);
  plan.slots.push({
    key: `${level}|${entity.id}|${win.name}`,
    level,
    labels: entity.labels.with('window', win.name),
    request: reqKey,
    window: win.name,
    index: slot.index,
    count: slot.count,
  });
}
