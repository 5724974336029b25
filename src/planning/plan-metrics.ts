/** Self-metrics of the request plan and the series budget, written by the scheduler only. */
import type { IdleSkipCounts, RefreshAchieved } from '../collectors/collector.ts';
import { type Registry, selfMetricMakers } from '../exposition/client.ts';
import type { RequestPlan } from './request-plan.ts';

/** The labels of one `refresh_achieved_seconds` series. */
interface AchievedLabels {
  readonly collector: string;
  readonly window: string;
  readonly level: string;
}

/** Typed handle on the plan's self-metrics: registers them on `registry` when constructed. */
export class PlanMetrics {
  readonly #m: ReturnType<typeof instruments>;
  /** The label sets of `achieved`, so that rows can be removed (the gauge cannot list them). */
  readonly #achievedRows = new Map<string, AchievedLabels>();

  constructor(registry: Registry) {
    this.#m = instruments(registry);
  }

  setPlan(plan: RequestPlan, windows: readonly string[]): void {
    const { planned } = this.#m;
    planned.reset();
    for (const e of plan.entries) {
      const seconds = e.refreshMs / 1000;
      if (e.window !== undefined && e.level !== undefined) {
        planned.set({ collector: e.collector, window: e.window, level: e.level }, seconds);
      } else {
        for (const window of windows)
          planned.set({ collector: e.collector, window, level: 'station' }, seconds);
      }
    }
    this.#m.plannedRate.set(plan.requestsPerMinute / 60);
    this.#m.budget.set(plan.budgetPerMinute / 60);
    this.#m.droppedEntries.set(plan.dropped.length);
  }

  /** Replaces the collector's achieved refresh: a (window, level) not in `rows` loses its series. */
  setAchieved(collector: string, rows: readonly RefreshAchieved[]): void {
    const fresh = new Set<string>();
    for (const r of rows) {
      const labels = { collector, window: r.window, level: r.level };
      this.#m.achieved.set(labels, r.seconds);
      this.#achievedRows.set(achievedKey(labels), labels);
      fresh.add(achievedKey(labels));
    }
    this.#removeAchieved((row) => row.collector === collector && !fresh.has(achievedKey(row)));
  }

  /** Keeps only these collectors' and windows' achieved refresh: a reload's removals take their series. */
  retainAchieved(keep: {
    readonly collectors: readonly string[];
    readonly windows: readonly string[];
  }): void {
    this.#removeAchieved((r) => !keep.collectors.includes(r.collector) || !keep.windows.includes(r.window));
  }

  addIdle(counts: IdleSkipCounts): void {
    this.#m.skipped.inc(counts.skipped);
    this.#m.verified.inc(counts.verified);
    this.#m.disagreements.inc(counts.disagreements);
  }

  setDropped(map: ReadonlyMap<string, number>): void {
    this.#m.dropped.reset();
    for (const [family, n] of map) this.#m.dropped.set({ family }, n);
  }

  #removeAchieved(drop: (row: AchievedLabels) => boolean): void {
    for (const [key, row] of this.#achievedRows) {
      if (!drop(row)) continue;
      this.#m.achieved.remove(row);
      this.#achievedRows.delete(key);
    }
  }
}

const achievedKey = (r: AchievedLabels) => `${r.collector}\u0000${r.window}\u0000${r.level}`;

/** Registers the plan's families on `registry`, in exposition order. */
function instruments(registry: Registry) {
  const { gauge, counter } = selfMetricMakers([registry]);
  const labelNames = ['collector', 'window', 'level'] as const;
  return {
    planned: gauge(
      'refresh_planned_seconds',
      'Refresh the request plan gives each (collector, window, level), from the planner; records collectors refresh every window on each poll (level "station").',
      labelNames,
    ),
    achieved: gauge(
      'refresh_achieved_seconds',
      "Longest time between two answers of one entity of the (collector, window, level), measured by the exporter's clock (records collectors: between two successful polls).",
      labelNames,
    ),
    plannedRate: gauge(
      'requests_planned_per_second',
      "Upstream requests per second the request plan makes, of this replica's budget (station_exporter_request_budget_per_second).",
    ),
    budget: gauge(
      'request_budget_per_second',
      "This replica's upstream request budget: upstream.max_requests_per_second over the shard count, or sharding.max_requests_per_second.",
    ),
    droppedEntries: gauge(
      'plan_dropped_entries',
      'Summary (window, level) pairs the request plan drops because the budget cannot carry them even at their longest refresh.',
    ),
    skipped: counter(
      'idle_skipped_requests_total',
      'Summary requests not sent because no unit record of their stations entered or left the window since the previous answer (summary.skip_idle).',
    ),
    verified: counter(
      'idle_skip_verified_total',
      'Summary requests that idle skipping would have skipped, sent anyway (a 2 % sample) to verify that the answer had not changed.',
    ),
    disagreements: counter(
      'idle_skip_disagreements_total',
      'Verified idle-skipped summary requests whose answer had changed: the idle assumption failed for them.',
    ),
    dropped: gauge(
      'series_dropped',
      'Series left out of /metrics by planning.max_series, by family (whole families, lowest priority first).',
      ['family'],
    ),
  };
}
