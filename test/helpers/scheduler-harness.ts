/**
 * A scheduler over fake collectors, for tests of the scheduler itself: a discovery collector that
 * always finds the same small plant, an injected wall clock, and readers of what it published.
 */
import pino from 'pino';
import type { DataCollector, DiscoveryCollector } from '../../src/collectors/collector.ts';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Registry } from '../../src/exposition/client.ts';
import { type Family, LabelSet } from '../../src/exposition/model.ts';
import { SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import type { Topology } from '../../src/model/topology.ts';
import { PlanMetrics } from '../../src/planning/plan-metrics.ts';
import type { RequestPlan } from '../../src/planning/request-plan.ts';
import { SeriesBudget } from '../../src/planning/series-budget.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { type FakeAnswers, plantOf, topologyOf } from './fake-client.ts';
import { jobContext } from './job-context.ts';

/** One site, one line of two stations. */
export const FAKE_TOPOLOGY: Topology = topologyOf([plantOf([2])]);

const fakeDiscovery: DiscoveryCollector = {
  kind: 'discovery',
  name: 'topology',
  families: [],
  costs: { series: () => [] },
  enabled: () => true,
  intervalMs: () => 60_000,
  createJob: () => ({
    poll: async () => ({ topology: FAKE_TOPOLOGY, families: [], requests: 1, failures: 0 }),
  }),
};

/** A one-sample family `fake_value`. */
export const fakeFamily = (value: number): Family => ({
  desc: { name: 'fake_value', kind: 'gauge', labels: [], help: 'A value.' },
  samples: [{ labels: LabelSet.EMPTY, value }],
});

/** What a harness may add: the fake upstream's answers, a request plan, and the clock's start. */
export interface HarnessOptions {
  readonly answers?: FakeAnswers;
  /** The request plan at every poll (absent: no plan, every part on every poll). */
  readonly plan?: (now: Date) => RequestPlan;
  /** The wall clock's start, epoch ms. */
  readonly start?: number;
}

/** A scheduler of `collectors` under `rawConfig`, with its self-metrics and published body. */
export function schedulerHarness(
  collectors: DataCollector[],
  rawConfig: Record<string, unknown> = {},
  opts: HarnessOptions = {},
) {
  const registry = new Registry();
  let now = opts.start ?? 1_000_000;
  const self = new SelfMetrics(registry, { version: 't', wallClock: () => now });
  let cache = new ExpositionCache();
  const context = jobContext(rawConfig, opts.answers);
  const plan = opts.plan;
  const planMetrics = new PlanMetrics(registry);
  const create = (previous?: Scheduler) =>
    new Scheduler({
      discovery: fakeDiscovery,
      collectors,
      context,
      cache,
      selfMetrics: self,
      logger: pino({ level: 'silent' }),
      wallClock: () => now,
      planMetrics,
      seriesBudget: new SeriesBudget(undefined),
      ...(plan ? { planner: () => plan } : {}),
      ...(previous ? { reuseJobs: previous.jobsByName, reuseFreshness: previous.staleness } : {}),
    });
  const scheduler = create();
  /** The value of `station_exporter_<name>` with these labels. */
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === `station_exporter_${name}`);
    const v = (m?.values as Array<{ labels: Record<string, string>; value: number }> | undefined)?.find((x) =>
      Object.entries(labels).every(([k, val]) => x.labels[k] === val),
    );
    return v?.value;
  };
  const body = async () => (await cache.respond('text', [])).body.toString('utf8');
  /** A config reload as wire.ts does it: a new scheduler and cache, the jobs and freshness kept. */
  const reload = (previous: Scheduler) => {
    cache = new ExpositionCache();
    return create(previous);
  };
  return { scheduler, metric, body, reload, client: context.client, advance: (ms: number) => (now += ms) };
}
