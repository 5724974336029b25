/**
 * The scheduler with fake collectors: it runs discovery first, times every poll, publishes
 * each outcome whole, and is the only writer of the self-metrics.
 */
import { describe, expect, it } from 'vitest';
import type { DataCollector, PollOutcome } from '../../src/collectors/collector.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';
import { FAKE_TOPOLOGY, fakeFamily, schedulerHarness } from '../helpers/scheduler-harness.ts';

const topology = FAKE_TOPOLOGY;

/** A data collector whose polls return (or throw) what the test queues. */
function fakeCollector(name: string, outcomes: Array<PollOutcome | Error>): DataCollector {
  return {
    kind: 'data',
    name,
    families: [],
    costs: { series: () => [] },
    enabled: () => true,
    intervalMs: () => 30_000,
    createJob: () => ({
      async poll(ctx) {
        expect(ctx.topology).toBe(topology);
        const next = outcomes.shift();
        if (!next) throw new Error('no outcome queued');
        if (next instanceof Error) throw next;
        return next;
      },
    }),
  };
}

describe('scheduler', () => {
  it('reports success per collector and keeps the last published data when a poll throws', async () => {
    const t = schedulerHarness([
      fakeCollector('a', [{ families: [fakeFamily(7)], requests: 2, failures: 0 }, new Error('boom')]),
    ]);
    expect(await t.scheduler.pollOnce()).toBe(true);
    expect(await t.metric('collector_success', { collector: 'a' })).toBe(1);
    expect(await t.metric('collector_success', { collector: 'topology' })).toBe(1);
    expect(await t.body()).toContain('fake_value 7');
    expect(t.scheduler.ready()).toBe(true);
    t.advance(30_000);
    expect(await t.scheduler.pollOnce()).toBe(false);
    expect(await t.metric('collector_success', { collector: 'a' })).toBe(0);
    expect(await t.body()).toContain('fake_value 7');
    expect(t.scheduler.status().find((s) => s.name === 'a')?.lastError).toBe('boom');
    // Data age runs from the last success, on the injected wall clock.
    expect(await t.metric('collector_data_age_seconds', { collector: 'a' })).toBe(30);
  });

  it('counts a poll with failed requests as unsuccessful, though its data is published', async () => {
    const t = schedulerHarness([
      fakeCollector('a', [{ families: [fakeFamily(3)], requests: 4, failures: 1 }]),
    ]);
    expect(await t.scheduler.pollOnce()).toBe(false);
    expect(await t.metric('collector_success', { collector: 'a' })).toBe(0);
    expect(await t.body()).toContain('fake_value 3');
    // A quarter of the requests failed: more than the share upstream_up tolerates.
    expect(await t.metric('upstream_up')).toBe(0);
    expect(await t.metric('collector_failed_requests_ratio', { collector: 'a' })).toBe(0.25);
  });

  it('keeps upstream_up at 1 when a small share of requests fails', async () => {
    const t = schedulerHarness([
      fakeCollector('a', [{ families: [fakeFamily(3)], requests: 20, failures: 1 }]),
    ]);
    await t.scheduler.pollOnce();
    expect(await t.metric('upstream_up')).toBe(1);
    expect(await t.metric('collector_failed_requests_ratio', { collector: 'a' })).toBe(0.05);
  });

  it('owns upstream_up: down while any collector got no answer at all, whatever the order', async () => {
    const dead = { families: [], requests: 3, failures: 3 };
    const fine = { families: [], requests: 3, failures: 0 };
    for (const order of [
      [dead, fine],
      [fine, dead],
    ]) {
      const t = schedulerHarness([
        fakeCollector('a', [order[0] ?? fine]),
        fakeCollector('b', [order[1] ?? fine]),
      ]);
      await t.scheduler.pollOnce();
      expect(await t.metric('upstream_up')).toBe(0);
    }
    const thrown = schedulerHarness([
      fakeCollector('a', [new UpstreamError('metrics', 'timeout', { message: 'slow' })]),
    ]);
    await thrown.scheduler.pollOnce();
    expect(await thrown.metric('upstream_up')).toBe(0);
  });

  it('turns diagnostics into self-metrics', async () => {
    const t = schedulerHarness([
      fakeCollector('a', [
        {
          families: [],
          requests: 1,
          failures: 0,
          diagnostics: { levelsSkipped: [{ level: 'site', reason: 'url_too_long', count: 2 }] },
        },
      ]),
    ]);
    await t.scheduler.pollOnce();
    expect(await t.metric('levels_skipped', { level: 'site', reason: 'url_too_long' })).toBe(2);
  });
});
