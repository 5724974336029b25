/**
 * The status page in a real browser (headless Chromium): it loads without console errors,
 * names that are markup show as text and run nothing, and refused and missing stations are
 * marked. `UPDATE_SCREENSHOTS=1` also writes docs/status.png.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import { HOSTILE } from '../../src/simulator/names.ts';
import { chromiumPath, launchChromium } from '../helpers/chromium.ts';
import { FIXED_NOW } from '../helpers/harness.ts';

const enabled = Boolean(chromiumPath()) || Boolean(process.env.CI);
const MISSING_ID = '0123456789abcdef01234567';

describe.skipIf(!enabled)('status page in headless Chromium', () => {
  let sim: RunningSimulator;
  let exporter: Exporter;
  let server: ReturnType<typeof serve>;
  let url: string;
  let forbidden: string;
  let hostileId: string;

  beforeAll(async () => {
    const clock = () => FIXED_NOW;
    sim = await startSimulatorServer({ seed: 7, now: clock, hostileNames: true });
    const stations = sim.sim.plant.stations;
    hostileId = stations.find((s) => s.name === HOSTILE.station)!.id;
    forbidden = stations[3]!.id;
    sim.sim.setScenario({ forbiddenStations: [forbidden] });
    const config = configFromObject(
      {
        upstream: { base_url: sim.url, token: 'demo-token', max_requests_per_second: 10_000 },
        discovery: { station_ids: [...stations.map((s) => s.id), MISSING_ID] },
      },
      { baseDir: process.cwd(), source: 'status browser test' },
    );
    // The simulator refuses one station (403): the exporter finds it and marks it refused.
    exporter = wireExporter(config, { wallClock: clock, logger: pino({ level: 'silent' }) });
    await exporter.scheduler.pollOnce();
    url = await new Promise<string>((resolve) => {
      server = serve({ fetch: exporter.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
    });
  });

  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await exporter?.close();
    await sim?.close();
  });

  it('is linked from /, loads without console errors, shows hostile names as text and marks refused stations', async () => {
    const { context, close } = await launchChromium();
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('dialog', (d) => {
        problems.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      await page.goto(`${url}/`);
      await page.click('a[href="status"]');
      await page.waitForURL(`${url}/status`);
      expect(await page.title()).toBe('station-exporter status');

      // Markup in names stays text: no element was created from it, and it reads back verbatim.
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('h3', { hasText: 'Plant <b>Nord</b> & "Süd"' }).count()).toBe(1);
      const row = page.locator(`tr[data-station-id="${hostileId}"]`);
      await page.locator('details.line', { has: row }).locator('summary').click();
      expect(await row.isVisible()).toBe(true);
      expect(await row.locator('td').nth(2).textContent()).toBe(HOSTILE.station);
      expect(
        await page.locator('summary', { hasText: "Line <img src=x onerror=alert(1)> 'Ω'" }).count(),
      ).toBe(1);

      // The refused station is marked in the tree and listed; the missing one is listed.
      const refusedRow = page.locator(`tr[data-station-id="${forbidden}"]`);
      expect(await refusedRow.getAttribute('class')).toBe('refused');
      expect(await refusedRow.textContent()).toContain('refused (403)');
      const listed = page.locator('#refused + ul li');
      expect(await listed.allTextContents()).toEqual([
        `${MISSING_ID}: named in the config, not visible to the token in /sites`,
        `${forbidden}: listed in /sites, but its data is refused (403)`,
      ]);
      // Its 403s show among the upstream errors, by endpoint and reason.
      const errorRows = await page.locator('#errors + table tbody tr').allTextContents();
      expect(errorRows.some((r) => r.includes('status403'))).toBe(true);

      await page.screenshot({
        fullPage: true,
        path: process.env.UPDATE_SCREENSHOTS ? 'docs/status.png' : undefined,
      });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 30_000);
});
