import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { wireExporter } from '../../src/app/wire.ts';
import { COLLECTORS } from '../../src/collectors/index.ts';
import { configFromObject, loadConfig } from '../../src/config/load.ts';
import { configReferenceRows } from '../../src/config/reference.ts';
import { createSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import { parseSimulatorArgs } from '../../src/simulator/main.ts';
import { dataExposition, FIXED_NOW } from '../helpers/harness.ts';

const HOUR = 3_600_000;

const examplePath = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

describe('config.example.yaml', () => {
  it('loads with the variable it uses', async () => {
    const config = await loadConfig(examplePath, { STATION_TOKEN: 'example-token' });
    expect(config.upstream.token).toEqual({ kind: 'inline', value: 'example-token' });
    expect(config.windows.map((w) => w.name)).toEqual(['1h', '24h', '8h', 'shift', 'today']);
  });

  it('mentions every key of the schema', () => {
    const text = readFileSync(examplePath, 'utf8');
    const missing = configReferenceRows()
      .map((row) => row.path.split(/\.|\[\]\./).at(-1) ?? '')
      .filter((key) => !new RegExp(`\\b${key}\\b\\s*:`).test(text));
    expect(missing).toEqual([]);
  });
});

describe('config.example.yaml against the simulator of `npm run simulate`', () => {
  it('names only measurements the simulator has, each of which returns records', async () => {
    const config = await loadConfig(examplePath, { STATION_TOKEN: 'demo-token' });
    expect(config.measurements.enabled).toBe(true);
    const opts = parseSimulatorArgs([]);
    if (opts === 'help') throw new Error('unexpected help');
    const sim = createSimulator({ ...opts, now: () => FIXED_NOW });
    const names = config.measurements.names.map((n) => n.name);
    expect(names.length).toBeGreaterThan(0);
    const from = new Date(FIXED_NOW - HOUR).toISOString();
    const to = new Date(FIXED_NOW).toISOString();
    for (const name of names) {
      // Through the HTTP route the exporter uses, with the simulator's default token.
      const res = await sim.app.request(`/metrics?${new URLSearchParams({ names: name, from, to })}`, {
        headers: { authorization: 'Bearer demo-token' },
      });
      expect(res.status).toBe(200);
      const records = ((await res.json()) as { data: { name: string }[] }).data;
      expect(records.filter((r) => r.name === name).length, name).toBeGreaterThan(0);
    }
  });

  it('shows every collector in one poll', async () => {
    const opts = parseSimulatorArgs(['--port', '0']);
    if (opts === 'help') throw new Error('unexpected help');
    const sim = await startSimulatorServer({ ...opts, now: () => FIXED_NOW });
    const raw = parseYaml(readFileSync(examplePath, 'utf8')) as {
      upstream: Record<string, unknown>;
      sharding: Record<string, unknown>;
    };
    raw.upstream.base_url = sim.url;
    // The rate limit refills on the injected clock, which stands still here.
    raw.upstream.max_requests_per_second = 10_000;
    raw.sharding.max_requests_per_second = 10_000;
    const config = configFromObject(raw, { env: { STATION_TOKEN: 'demo-token' }, baseDir: '.' });
    const exporter = wireExporter(config, { wallClock: () => FIXED_NOW, logger: pino({ level: 'silent' }) });
    try {
      expect(await exporter.scheduler.pollOnce()).toBe(true);
      const text = await dataExposition(exporter);
      const sampled = new Set(
        text
          .split('\n')
          .filter((l) => l && !l.startsWith('#'))
          .map((l) => /^[^{ ]+/.exec(l)![0]),
      );
      for (const c of COLLECTORS) {
        expect(c.families.filter((f) => sampled.has(f.name)).length, c.name).toBeGreaterThan(0);
      }
      // The control charts' event counter (with the CUSUM's and EWMA's) and their gauges.
      for (const name of [
        'station_measurement_control_violations_total',
        'station_measurement_control_cusum_upper',
        'station_measurement_control_cusum_lower',
        'station_measurement_control_cusum_decision_interval',
        'station_measurement_control_ewma',
        'station_measurement_control_ewma_half_width',
      ])
        expect(sampled.has(name), name).toBe(true);
      expect(text).toMatch(/^station_measurement_control_violations_total\{[^}]*rule="cusum"\} \d+$/m);
      const samples = text.split('\n').filter((l) => l.startsWith('station_measurement_window_samples{'));
      for (const { name } of config.measurements.names) {
        expect(samples.filter((l) => l.includes(`metric="${name}"`)).length, name).toBeGreaterThan(0);
      }
    } finally {
      await exporter.close();
      await sim.close();
    }
  });
});
