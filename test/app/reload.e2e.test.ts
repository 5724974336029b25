import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reloader } from '../../src/app/reload.ts';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';

const logger = pino({ level: 'silent' });
let sim: RunningSimulator;
let file: string;
let reloader: Reloader;

const yaml = (windows: string) =>
  `upstream:\n  base_url: ${sim.url}\n  token: demo-token\nwindows: [${windows}]\n`;

beforeAll(async () => {
  sim = await startSimulatorServer({ seed: 5, scale: { sites: 1, linesPerSite: 1, stationsPerLine: 3 } });
  file = path.join(mkdtempSync(path.join(tmpdir(), 'reload-')), 'config.yaml');
  writeFileSync(file, yaml('1h'));
  const wire = (c: Config, previous?: Exporter) =>
    wireExporter(c, { logger, reload: () => reloader.reload(), previous });
  const initial = wire(await loadConfig(file));
  await initial.scheduler.pollOnce();
  reloader = new Reloader({ initial, configPath: file, wire, logger });
});
afterAll(async () => {
  await reloader.current().close();
  await sim.close();
});

const metrics = async () => (await reloader.current().app.request('/metrics')).text();

/**
 * Writes `content` to the config file and asks for a reload, which must fail with `reason` and
 * leave the running exporter (the one with the 8h window) in place.
 */
async function expectRefused(content: string, reason: string): Promise<void> {
  const before = reloader.current();
  writeFileSync(file, content);
  const res = await before.app.request('/-/reload', { method: 'POST' });
  expect(res.status).toBe(500);
  expect(await res.text()).toContain(reason);
  expect(reloader.current()).toBe(before);
  expect(await metrics()).toContain('window="8h"');
}

describe('config reload', () => {
  it('swaps in a valid new config after polling it once', async () => {
    expect(await metrics()).not.toContain('window="8h"');
    writeFileSync(file, yaml('1h, 8h'));
    const res = await reloader.current().app.request('/-/reload', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await metrics()).toContain('window="8h"');
  });

  it('keeps the running config when the new file is invalid, and says why', async () => {
    await expectRefused(`${yaml('1h')}bogus: 1\n`, 'bogus: unknown key');
  });

  it('keeps the running config when the new upstream cannot be reached', async () => {
    await expectRefused(
      'upstream:\n  base_url: http://127.0.0.1:9\n  token: demo-token\n  timeout: 2s\nwindows: [1h]\n',
      'could not discover any site',
    );
  });

  it('keeps self-metrics, client and stores when only another collector changed', async () => {
    writeFileSync(file, yaml('1h, 8h'));
    expect((await reloader.reload()).ok).toBe(true);
    const before = reloader.current();
    const requests = async () =>
      (await before.registry.getSingleMetric('station_exporter_upstream_requests_total')?.get())?.values ??
      [];
    const count = async (endpoint: string) =>
      (await requests()).filter((v) => v.labels.endpoint === endpoint).reduce((a, v) => a + v.value, 0);
    const unitsBefore = await count('units');
    const sitesBefore = await count('sites');
    const unitsJob = before.scheduler.jobsByName.get('units');
    // Only the summary's settings change: units keeps its job (and store), the client stays.
    writeFileSync(file, `${yaml('1h, 8h')}summary:\n  levels: [station]\n`);
    expect((await reloader.reload()).ok).toBe(true);
    const after = reloader.current();
    expect(after).not.toBe(before);
    expect(after.registry).toBe(before.registry);
    expect(after.upstream.client).toBe(before.upstream.client);
    expect(after.scheduler.jobsByName.get('units')).toBe(unitsJob);
    // Counters went on from where they were: never reset.
    expect(await count('sites')).toBeGreaterThan(sitesBefore);
    // The kept units job polled incrementally: one request, not the 8h history again.
    expect((await count('units')) - unitsBefore).toBeLessThanOrEqual(1);
    const text = await after.registry.metrics();
    expect(text).toContain('station_exporter_config_last_reload_successful 1');
  });

  it('records a failed reload in config_last_reload_successful', async () => {
    writeFileSync(file, `${yaml('1h')}bogus: 1\n`);
    expect((await reloader.reload()).ok).toBe(false);
    expect(await reloader.current().registry.metrics()).toContain(
      'station_exporter_config_last_reload_successful 0',
    );
  });

  it('lets reloads asked for while one runs join it', async () => {
    writeFileSync(file, yaml('1h, 8h'));
    const [a, b] = [reloader.reload(), reloader.reload()];
    expect(a).toBe(b);
    expect((await a).ok).toBe(true);
  });

  it('refuses to reload in demo mode', async () => {
    const r = new Reloader({
      initial: reloader.current(),
      configPath: undefined,
      wire: () => reloader.current(),
      logger,
    });
    expect(await r.reload()).toEqual({
      ok: false,
      error: 'demo mode: there is no config file to reload; start with --config FILE',
      noConfig: true,
    });
  });
});
