/**
 * Staleness: past a collector's max_staleness its series leave /metrics (never served as
 * fresh), a failed poll does not bring them back, a successful one does; a poll that runs past
 * its interval is not a success.
 */
import { describe, expect, it } from 'vitest';
import type { DataCollector, PollOutcome } from '../../src/collectors/collector.ts';
import { fakeFamily, schedulerHarness } from '../helpers/scheduler-harness.ts';

/** A collector whose bound comes from `units.max_staleness`, as the units collector's does. */
function units(next: () => Promise<PollOutcome>): DataCollector {
  return {
    kind: 'data',
    name: 'units',
    families: [],
    costs: { series: () => [] },
    enabled: () => true,
    intervalMs: (c) => c.units.intervalMs,
    maxStalenessMs: (c) => c.units.maxStalenessMs,
    createJob: () => ({ poll: next }),
  };
}

/** The scheduler over one units-like collector, with a 10 s interval and a 30 s bound. */
function setup(next: () => Promise<PollOutcome>) {
  const t = schedulerHarness([units(next)], { units: { interval: '10s', max_staleness: '30s' } });
  return { ...t, metric: (name: string) => t.metric(name, { collector: 'units' }) };
}

describe('staleness', () => {
  it('drops a collector past max_staleness and brings it back on the next good poll', async () => {
    const queue: Array<PollOutcome | Error> = [
      { families: [fakeFamily(1)], requests: 1, failures: 0 },
      { families: [fakeFamily(1)], requests: 4, failures: 4 },
      { families: [fakeFamily(1)], requests: 4, failures: 4 },
      { families: [fakeFamily(2)], requests: 1, failures: 0 },
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
      return { families: [fakeFamily(1)], requests: 1, failures: 0 };
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
