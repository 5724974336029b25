/**
 * Staleness: past a collector's max_staleness its series leave /metrics (never served as
 * fresh), a failed poll does not bring them back, a successful one does; a poll that runs past
 * its interval is not a success.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { DataCollector, PollOutcome } from '../../src/collectors/collector.ts';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { LabelSet } from '../../src/exposition/model.ts';
import { createSelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { FAKE_TOPOLOGY, fakeDiscovery } from '../helpers/fake-discovery.ts';
import { jobContext } from '../helpers/job-context.ts';

const _topology = FAKE_TOPOLOGY;
const discovery = fakeDiscovery;

const family = (value: number) => ({
  desc: { name: 'fake_value', kind: 'gauge' as const, labels: [], help: 'A value.' },
  samples: [{ labels: LabelSet.EMPTY, value }],
});

/** A collector whose bound comes from `units.max_staleness`, as the units collector's does. */
function units(next: () => Promise<PollOutcome>): DataCollector {
  return {
    kind: 'data',
    name: 'units',
    families: [],
    enabled: () => true,
    intervalMs: (c) => c.units.intervalMs,
    maxStalenessMs: (c) => c.units.maxStalenessMs,
    createJob: () => ({ poll: next }),
  };
}

function setup(next: () => Promise<PollOutcome>) {
  const registry = new Registry();
  let now = 1_000_000;
  const self = createSelfMetrics(registry, { version: 't', wallClock: () => now });
  const cache = new ExpositionCache();
  const scheduler = createScheduler({
    discovery,
    collectors: [units(next)],
    context: jobContext({ units: { interval: '10s', max_staleness: '30s' } }),
    cache,
    self,
    logger: pino({ level: 'silent' }),
    wallClock: () => now,
  });
  const metric = async (name: string) => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === `station_exporter_${name}`);
    const values = m?.values as Array<{ labels: Record<string, string>; value: number }> | undefined;
    return values?.find((v) => v.labels.collector === 'units')?.value;
  };
  const body = async () => (await cache.respond('text', false, [])).body.toString('utf8');
  return { scheduler, metric, body, advance: (ms: number) => (now += ms) };
}

describe('staleness', () => {
  it('drops a collector past max_staleness and brings it back on the next good poll', async () => {
    const queue: Array<PollOutcome | Error> = [
      { families: [family(1)], requests: 1, failures: 0 },
      { families: [family(1)], requests: 4, failures: 4 },
      { families: [family(1)], requests: 4, failures: 4 },
      { families: [family(2)], requests: 1, failures: 0 },
    ];
    const t = setup(async () => {
      const o = queue.shift()!;
      if (o instanceof Error) throw o;
      return o;
    });
    await t.scheduler.pollOnce();
    expect(await t.body()).toContain('fake_value 1');
    t.advance(20_000);
    await t.scheduler.pollOnce();
    // 20 s old, within 30 s: the last good data is still served.
    expect(await t.body()).toContain('fake_value 1');
    expect(await t.metric('collector_stale')).toBe(0);
    t.advance(15_000);
    await t.scheduler.pollOnce();
    expect(await t.body()).not.toContain('fake_value');
    expect(await t.metric('collector_stale')).toBe(1);
    expect(await t.metric('collector_data_age_seconds')).toBe(35);
    t.advance(10_000);
    await t.scheduler.pollOnce();
    expect(await t.body()).toContain('fake_value 2');
    expect(await t.metric('collector_stale')).toBe(0);
  });

  it('drops stale data while a poll hangs, and counts the overrun poll as a failure', async () => {
    let release!: () => void;
    let calls = 0;
    const t = setup(async () => {
      calls++;
      if (calls > 1) await new Promise<void>((r) => (release = r));
      return { families: [family(1)], requests: 1, failures: 0 };
    });
    await t.scheduler.pollOnce();
    expect(await t.metric('collector_success')).toBe(1);
    const hanging = t.scheduler.pollOnce();
    // Let discovery finish, so that the units poll is the one running.
    while (calls < 2) await new Promise((r) => setImmediate(r));
    t.advance(12_000);
    t.scheduler.watch();
    // Running past its 10 s interval: not a success, though nothing failed yet.
    expect(await t.metric('collector_success')).toBe(0);
    expect(await t.body()).toContain('fake_value 1');
    t.advance(20_000);
    t.scheduler.watch();
    expect(await t.body()).not.toContain('fake_value');
    release();
    await hanging;
    expect(await t.body()).toContain('fake_value 1');
  });
});
