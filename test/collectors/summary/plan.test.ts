/** Planning a summary poll: every (entity, window) slot, planned in slices of the event loop. */
import { describe, expect, it } from 'vitest';
import { planSummaries } from '../../../src/collectors/summary/plan.ts';
import { configFromObject } from '../../../src/config/load.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { turnsDuring } from '../../helpers/loop-turns.ts';

describe('planSummaries', () => {
  it('plans every slot once per level and window, yielding to the event loop between slices', async () => {
    // 3 lines of 400 stations: 1,200 stations, 3 lines, 1 site.
    const topology = topologyOf([plantOf([400, 400, 400])]);
    const { windows } = configFromObject(
      { upstream: { base_url: 'http://x', token: 't' }, windows: ['15m', '1h'] },
      { env: {}, baseDir: '/' },
    );
    const planning = planSummaries(
      topology,
      {
        levels: ['station', 'line', 'site'],
        windows,
        maxUrlLength: 8192,
        urlLength: (r) => 100 + 25 * r.stationIds.length,
        yielder: new LoopYielder(),
      },
      new Date('2026-11-26T12:00:00Z'),
    );
    const turns = await turnsDuring(planning);
    const plan = await planning;
    // Lines of 400 stations (URLs of 10,100 characters) and the site are over the limit: skipped.
    expect(plan.slots).toHaveLength(2 * 1200);
    expect(new Set(plan.slots.map((s) => s.key)).size).toBe(plan.slots.length);
    expect(plan.skipped.get('line')).toBe(2 * 3);
    expect(plan.skipped.get('site')).toBe(2);
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
