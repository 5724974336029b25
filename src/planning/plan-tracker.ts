/**
 * The scheduler's bookkeeping of the request plan (re-planned at every poll, as calendar windows
 * grow) and the series budget: metrics and log lines only, never what a collector polls.
 */
import type { Logger } from 'pino';
import type { PollOutcome } from '../collectors/collector.ts';
import type { Family } from '../exposition/model.ts';
import type { Topology } from '../model/topology.ts';
import type { PlanMetrics } from './plan-metrics.ts';
import type { RequestPlan } from './request-plan.ts';
import type { SeriesBudget } from './series-budget.ts';

/** What the tracker reads and writes. */
export interface PlanTrackerDeps {
  readonly logger: Logger;
  /** Wall clock, epoch ms. */
  readonly wallClock: () => number;
  /** The configured windows' names, in config order. */
  readonly windows: readonly string[];
  readonly collectors: readonly string[];
  /** The request planner for a topology (this replica's share) at a time; without it, no plan. */
  readonly planner?: (topology: Topology) => (now: Date) => RequestPlan;
  readonly planMetrics: PlanMetrics;
  /** The series budget (`planning.max_series`), applied to every part before it is published. */
  readonly seriesBudget: SeriesBudget;
}

/** Collectors that read records and refresh every window on each successful poll. */
const RECORDS_COLLECTORS: ReadonlySet<string> = new Set(['measurements', 'units']);

/** Tracks the plan and the budgets for one scheduler. */
export class PlanTracker {
  private planAt: ((now: Date) => RequestPlan) | undefined;
  private topologyKey = '';
  private lastPlanText = '';
  private lastDroppedText = '';
  private lastPlan: RequestPlan | undefined;
  /** Last successful poll per records collector, for their achieved refresh. */
  private readonly lastOkAt = new Map<string, number>();

  constructor(private readonly deps: PlanTrackerDeps) {
    // The plan metrics outlive a reload; what the new config no longer polls leaves them now.
    deps.planMetrics.retainAchieved({ collectors: deps.collectors, windows: deps.windows });
  }

  /** A discovery's topology: re-plans when its entities changed. */
  topology(topology: Topology): void {
    const key = entitiesKey(topology);
    if (key === this.topologyKey) return;
    this.topologyKey = key;
    this.planAt = this.deps.planner?.(topology);
  }

  /** The plan at `now`, if there is a planner; its metrics are set and a changed plan is logged. */
  plan(now: Date): RequestPlan | undefined {
    const plan = this.planAt?.(now);
    if (plan === undefined) return undefined;
    this.lastPlan = plan;
    this.deps.planMetrics.setPlan(plan, this.deps.windows);
    const text = plan.entries.map((e) => `${e.collector}/${e.window}/${e.level}=${e.refreshMs}`).join(' ');
    if (text !== this.lastPlanText) {
      this.lastPlanText = text;
      this.logPlan(plan);
    }
    return plan;
  }

  /** Each collector's shortest and longest refresh in the last plan; empty before the first. */
  refreshRanges(): Map<string, { minMs: number; maxMs: number }> {
    const ranges = new Map<string, { minMs: number; maxMs: number }>();
    for (const e of this.lastPlan?.entries ?? []) {
      const r = ranges.get(e.collector);
      ranges.set(e.collector, {
        minMs: Math.min(r?.minMs ?? e.refreshMs, e.refreshMs),
        maxMs: Math.max(r?.maxMs ?? e.refreshMs, e.refreshMs),
      });
    }
    return ranges;
  }

  /** A poll's families as the series budget lets them through. */
  admit(collector: string, families: readonly Family[]): readonly Family[] {
    return this.deps.seriesBudget.filter(collector, families);
  }

  /** Records a published poll: the families the budget left out, achieved refresh, idle skipping. */
  published(collector: string, outcome: PollOutcome): void {
    const { planMetrics } = this.deps;
    this.recordDropped();
    const d = outcome.diagnostics;
    if (d?.refresh) planMetrics.setAchieved(collector, d.refresh);
    if (d?.idle) planMetrics.addIdle(d.idle);
    if (RECORDS_COLLECTORS.has(collector) && outcome.failures === 0) this.recordsRefreshed(collector);
  }

  /** A records collector's achieved refresh: the time between its last two successful polls. */
  private recordsRefreshed(collector: string): void {
    const now = this.deps.wallClock();
    const last = this.lastOkAt.get(collector);
    this.lastOkAt.set(collector, now);
    if (last === undefined) return;
    const seconds = (now - last) / 1000;
    this.deps.planMetrics.setAchieved(
      collector,
      this.deps.windows.map((window) => ({ window, level: 'station', seconds })),
    );
  }

  private logPlan(plan: RequestPlan): void {
    const { logger } = this.deps;
    const fields = {
      requests_per_minute: Math.round(plan.requestsPerMinute),
      budget_per_minute: plan.budgetPerMinute,
      dropped: plan.dropped.map((d) => [d.collector, d.window, d.level].filter(Boolean).join(' ')),
    };
    if (plan.dropped.length > 0) {
      logger.warn(
        fields,
        'request plan changed; the budget cannot carry every window and level (see check-config)',
      );
    } else logger.info(fields, 'request plan changed');
  }

  /** Metric and log line of the families the series budget leaves out. */
  private recordDropped(): void {
    const { seriesBudget, planMetrics } = this.deps;
    const dropped = seriesBudget.droppedFamilies();
    planMetrics.setDropped(dropped);
    const text = [...dropped.keys()].join(',');
    if (text === this.lastDroppedText) return;
    this.lastDroppedText = text;
    this.deps.logger.warn(
      { dropped: Object.fromEntries(dropped), max_series: seriesBudget.maxSeries },
      dropped.size > 0
        ? 'series budget exceeded: whole families left out of /metrics, lowest priority first'
        : 'series budget met again: no family is left out',
    );
  }
}

/** What the plan depends on in a topology: its entities. */
function entitiesKey(t: Topology): string {
  return [t.stations, t.groups, t.lines, t.sites].map((list) => list.map((e) => e.id).join(',')).join('|');
}
