import { describe, expect, it, vi } from 'vitest';
import { startSimulatorServer } from '../../src/simulator/index.ts';
import { parseDuration, parseSimulatorArgs, runSimulatorCommand } from '../../src/simulator/main.ts';
import { NOW } from './helpers.ts';

describe('startSimulatorServer', () => {
  it('serves over a real socket on a random port and ends hanging requests when the client aborts', async () => {
    const running = await startSimulatorServer({ port: 0, now: () => NOW });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${running.url}/sites`, { headers: { authorization: 'Bearer demo-token' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown }).data).toEqual(running.sim.plant.sites);
      expect(running.sim.requests[0]!.headers['authorization']).toBe('Bearer demo-token');

      running.sim.setScenario({ hangRate: 1 });
      const controller = new AbortController();
      const hung = fetch(`${running.url}/sites`, {
        headers: { authorization: 'Bearer demo-token' },
        signal: controller.signal,
      });
      await vi.waitFor(() => expect(running.sim.requests).toHaveLength(2), { timeout: 10_000 });
      controller.abort();
      await expect(hung).rejects.toThrow();
      await vi.waitFor(() => expect(running.sim.requests[1]!.status).toBe(499), { timeout: 10_000 });
    } finally {
      await running.close();
    }
  });
});

describe('simulate command arguments', () => {
  it('parses every flag', () => {
    const opts = parseSimulatorArgs([
      '--port=0',
      '--host',
      '0.0.0.0',
      '--seed',
      '7',
      '--token',
      'a',
      '--token',
      'b:0123456789abcdef01234567',
      '--sites',
      '3',
      '--lines-per-site',
      '4',
      '--stations-per-line',
      '5',
      '--measurements',
      '50',
      '--units-per-hour',
      '60',
      '--latency',
      '200ms',
      '--jitter',
      '1s',
      '--error-rate',
      '0.1',
      '--hang-rate',
      '0.05',
      '--malformed-rate',
      '0.05',
      '--drift',
      'extra-field',
      '--forbid-stations',
      'aaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbb',
      '--large',
      '--yield-scale',
      'percent',
      '--max-records',
      '1000',
      '--exotic-names',
    ]);
    expect(opts).toEqual({
      port: 0,
      host: '0.0.0.0',
      seed: 7,
      tokens: { a: { sites: 'all' }, b: { sites: ['0123456789abcdef01234567'] } },
      scale: { sites: 3, linesPerSite: 4, stationsPerLine: 5, measurementNames: 50, unitsPerHour: 60 },
      scenario: {
        latencyMs: 200,
        jitterMs: 1000,
        errorRate: 0.1,
        hangRate: 0.05,
        malformedRate: 0.05,
        drift: 'extra-field',
        forbiddenStations: ['aaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb'],
        large: true,
      },
      yieldScale: 'percent',
      maxRecords: 1000,
      exoticNames: true,
    });
  });

  it('has the documented defaults', () => {
    expect(parseSimulatorArgs([])).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      seed: 42,
      tokens: { 'demo-token': { sites: 'all' } },
    });
    expect(parseSimulatorArgs([])).not.toHaveProperty('plant');
  });

  it('chooses the plant with --plant', () => {
    expect(parseSimulatorArgs(['--plant', 'realistic'])).toMatchObject({ plant: 'realistic' });
    expect(parseSimulatorArgs(['--plant', 'textbook'])).toMatchObject({ plant: 'textbook' });
  });

  it.each([
    [['--plant', 'ideal']],
    [['--port', 'x']],
    [['--seed', '-1']],
    [['--drift', 'sideways']],
    [['--latency', 'soon']],
    [['--yield-scale', 'permille']],
    [['--sites', '0']],
    [['--bogus']],
  ])('rejects %j', (argv) => {
    expect(() => parseSimulatorArgs(argv)).toThrow();
  });

  it('parses durations', () => {
    expect([
      parseDuration('250'),
      parseDuration('250ms'),
      parseDuration('1.5s'),
      parseDuration('2m'),
    ]).toEqual([250, 250, 1500, 120_000]);
  });

  it('prints help and sets exit code 2 on bad flags', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await runSimulatorCommand(['--help']);
      expect(String(out.mock.calls[0]?.[0])).toContain('--forbid-stations');
      await runSimulatorCommand(['--nope']);
      expect(String(err.mock.calls[0]?.[0])).toContain('simulate:');
      expect(process.exitCode).toBe(2);
    } finally {
      process.exitCode = undefined;
      out.mockRestore();
      err.mockRestore();
    }
  });
});
