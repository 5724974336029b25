import { afterEach, describe, expect, it, vi } from 'vitest';
import { wireExporter } from '../../src/app/wire.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { manualTimers } from '../helpers/timers.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('scheduler start', () => {
  it('retries a failed first discovery within seconds, not a refresh interval, then polls data', async () => {
    h = await startHarness({ config: { windows: ['1h'], units: { enabled: false } } });
    const m = manualTimers();
    const exporter = wireExporter(h.config, {
      timers: m.timers,
      random: () => 0.5,
      logger: h.exporter.logger,
      wallClock: h.now,
    });
    h.sim.sim.setScenario({ errorRate: 1 });
    exporter.scheduler.start();
    m.fire(0);
    const status = (name: string) => exporter.scheduler.status().find((s) => s.name === name);
    await vi.waitFor(() => expect(status('topology')?.polls).toBe(1), { timeout: 10_000 });
    expect(exporter.scheduler.ready()).toBe(false);
    h.sim.sim.setScenario({ errorRate: 0 });
    m.fire(10_000);
    await vi.waitFor(() => expect(status('topology')?.lastOk).toBe(true), { timeout: 10_000 });
    m.fire(0);
    await vi.waitFor(() => expect(status('summary')?.polls).toBe(1), { timeout: 10_000 });
    expect(exporter.scheduler.ready()).toBe(true);
    await exporter.close();
  });
});
