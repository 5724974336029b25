/**
 * The demo (src/app/commands/demo.ts) tells the truth: every station of its plant has a control chart,
 * so the station dashboard's default station (the first listed) shows one, and its one shift is
 * on a chart that gets every unit of its line (no slots, no parallel group).
 */
import { describe, expect, it } from 'vitest';
import { demoConfig, demoProcess } from '../../../src/app/commands/demo.ts';
import { buildPlant, DEFAULT_SCALE } from '../../../src/simulator/plant.ts';

describe('the demo', () => {
  const plant = buildPlant(42, DEFAULT_SCALE);
  const { control } = demoConfig('http://127.0.0.1:1').measurements;
  // A name is charted when a `names` pattern matches it, as the control charts decide.
  const isCharted = (name: string) => control.names.some((n) => n.pattern.test(name));

  it('charts a measurement of every station', () => {
    for (const s of plant.stationsById.values()) {
      expect(
        s.measures.some((m) => isCharted(m.name)),
        `${s.name} (${s.id})`,
      ).toBe(true);
    }
  });

  it('shifts a charted name on a station without slots or group', async () => {
    const { events } = await demoProcess(42, 0);
    expect(events).toHaveLength(1);
    const station = plant.stationsById.get(events[0]!.stationId)!;
    expect(isCharted(events[0]!.name)).toBe(true);
    expect(station.slots).toBe(0);
    expect(station.groupId).toBeUndefined();
  });
});
