/** The demo: the built-in simulator, its config and its one injected event. */
import { configFromObject } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';

/** Token and seed of the built-in demo simulator. */
const DEMO = { token: 'demo-token', seed: 42 } as const;

/**
 * The config for the built-in simulator, validated as a file is, so the demo cannot drift from
 * what a user could write; it exercises what the shipped rules and dashboards read. solder_height
 * is the simulator's one deliberately incapable characteristic (docs/simulator.md).
 */
export function demoConfig(baseUrl: string): Config {
  return configFromObject(
    {
      upstream: { base_url: baseUrl, token: DEMO.token, max_requests_per_second: 500, concurrency: 8 },
      windows: ['1h', '8h', '24h', { name: 'today', type: 'today', timezone: 'UTC' }],
      summary: { interval: '30s' },
      measurements: {
        enabled: true,
        names: ['vcc_3v3', 'idle_current', 'insulation_resistance', 'solder_height', 'firmware_check'],
        // Every demo station measures one of these, so every station has a control chart.
        control: {
          names: ['vcc_3v3', 'idle_current', 'insulation_resistance'],
          baseline: { rolling: '24h' },
        },
      },
    },
    { baseDir: process.cwd(), source: 'built-in demo config' },
  );
}

/** The demo's charted names (see {@link demoConfig}) and its one injected event. */
const DEMO_SHIFT = { name: 'vcc_3v3', sigmas: 3, afterMs: 5 * 60_000 } as const;

/**
 * The demo plant's process: no drift, and one 3 sigma shift of vcc_3v3 on one station five
 * minutes after start, so that a newcomer sees the CUSUM catch it while every other chart stays
 * quiet. A station without slots or group gets every unit of its line: no split delays the signal.
 */
export async function demoProcess(seed: number, startMs: number) {
  // The plant model says which stations measure the name; no records need generating.
  const { buildPlant, DEFAULT_SCALE } = await import('../../simulator/plant.ts');
  const station = [...buildPlant(seed, DEFAULT_SCALE).stationsById.values()].find(
    (s) => s.slots === 0 && s.groupId === undefined && s.measures.some((m) => m.name === DEMO_SHIFT.name),
  );
  return {
    drift: false,
    events: station
      ? [
          {
            kind: 'shift' as const,
            stationId: station.id,
            name: DEMO_SHIFT.name,
            fromMs: startMs + DEMO_SHIFT.afterMs,
            sigmas: DEMO_SHIFT.sigmas,
          },
        ]
      : [],
  };
}

/** The demo simulator on a free local port. */
export async function startDemoSimulator() {
  const { startSimulatorServer } = await import('../../simulator/index.ts');
  return startSimulatorServer({
    port: 0,
    host: '127.0.0.1',
    seed: DEMO.seed,
    tokens: { [DEMO.token]: { sites: 'all' } },
    process: await demoProcess(DEMO.seed, Date.now()),
  });
}
