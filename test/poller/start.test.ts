import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LoopTimers } from '../../src/poller/loop.ts';
import { wireExporter } from '../../src/wire.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

/** Timers that fire only when the test says so. */
function manualTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: LoopTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      due.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (h) => void due.delete(h as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...due]) {
      if (t.at <= now) {
        due.delete(id);
        t.fn();
      }
    }
  };
  return { timers, advance };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('poller start', () => {
  it('retries a failed first discovery within seconds, not a refresh interval, then polls data', async () => {
    h = await startHarness({ config: { windows: ['1h'], units: { enabled: false } } });
    const m = manualTimers();
    const exporter = wireExporter(h.config, {
      timers: m.timers,
      random: () => 0.5,
      logger: h.exporter.logger,
      clock: h.now,
    });
    h.sim.sim.setScenario({ errorRate: 1 });
    exporter.poller.start();
    m.advance(0);
    const status = (name: string) => exporter.poller.status().find((s) => s.name === name);
    await vi.waitFor(() => expect(status('topology')?.polls).toBe(1));
    expect(exporter.poller.ready()).toBe(false);
    h.sim.sim.setScenario({ errorRate: 0 });
    m.advance(10_000);
    await vi.waitFor(() => expect(status('topology')?.lastOk).toBe(true));
    m.advance(0);
    await vi.waitFor(() => expect(status('summary')?.polls).toBe(1));
    expect(exporter.poller.ready()).toBe(true);
    await exporter.close();
  });
});
