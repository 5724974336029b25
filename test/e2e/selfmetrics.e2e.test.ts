import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.ts';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'plant-eng', exp: 1_900_000_000 })}.c2ln`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function selfText(harness: Harness) {
  return (await harness.exporter.app.request('/metrics')).text();
}

describe('self-metrics end to end', () => {
  it("exports the JWT's expiry without ever exporting the token", async () => {
    h = await startHarness({
      sim: { tokens: { [JWT]: { sites: 'all' } } },
      upstream: { token: JWT },
      config: { windows: ['1h'], units: { enabled: false } },
    });
    await h.exporter.scheduler.pollOnce();
    const text = await selfText(h);
    expect(text).toContain('station_exporter_token_expiry_timestamp_seconds 1900000000');
    expect(text).not.toContain(JWT.split('.')[1]);
  });

  it('reports configured stations the token cannot see, and exports the rest', async () => {
    h = await startHarness({ config: { windows: ['1h'], units: { enabled: false } } });
    const [a, b] = h.sim.sim.plant.stations;
    await h.close();
    h = await startHarness({
      config: {
        windows: ['1h'],
        units: { enabled: false },
        discovery: { station_ids: [a?.id, b?.id, 'f'.repeat(24)] },
      },
    });
    await h.exporter.scheduler.pollOnce();
    const text = await selfText(h);
    expect(text).toContain('station_exporter_stations_inaccessible 1');
    expect(text.match(/^station_info\{/gm)).toHaveLength(2);
  });

  it('counts upstream requests by endpoint and status class, and reports up', async () => {
    h = await startHarness({ config: { windows: ['1h'], units: { enabled: false } } });
    await h.exporter.scheduler.pollOnce();
    const text = await selfText(h);
    expect(text).toContain('station_exporter_upstream_up 1');
    expect(text).toMatch(
      /station_exporter_upstream_requests_total\{endpoint="sites",status_class="2xx"\} 1\n/,
    );
    expect(text).toMatch(/station_exporter_collector_success\{collector="summary"\} 1/);
    expect(text).toMatch(/station_exporter_collector_data_age_seconds\{collector="summary"\} 0/);
  });

  it('exports the configured interval of every collector, topology included, before any poll', async () => {
    h = await startHarness({
      config: {
        windows: ['1h'],
        discovery: { refresh_interval: '15m' },
        summary: { interval: '2m' },
        units: { interval: '30s' },
      },
    });
    // measurements is disabled by default: no interval for a collector that does not run.
    const lines = (await selfText(h))
      .split('\n')
      .filter((l) => l.startsWith('station_exporter_collector_interval_seconds{'));
    expect(lines.sort()).toEqual([
      'station_exporter_collector_interval_seconds{collector="summary"} 120',
      'station_exporter_collector_interval_seconds{collector="targets"} 60',
      'station_exporter_collector_interval_seconds{collector="topology"} 900',
      'station_exporter_collector_interval_seconds{collector="units"} 30',
    ]);
  });

  it('exports the request plan in force and the refresh achieved per (collector, window, level)', async () => {
    h = await startHarness({ config: { windows: ['15m', '24h'] } });
    const value = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.split(' ')[1],
      );
    await h.exporter.scheduler.pollOnce();
    // The registry itself: /metrics holds self-metrics for a second, and both polls take less.
    let text = await h.exporter.registry.metrics();
    expect(value(text, 'station_exporter_request_budget_per_second')).toBe(10_000);
    const planned = (w: string, level = 'station', c = 'summary') =>
      value(
        text,
        `station_exporter_refresh_planned_seconds{collector="${c}",window="${w}",level="${level}"}`,
      );
    // The defaults the README promises: a 15m window every minute, a 24h window every 10-15 minutes.
    expect(planned('15m')).toBe(60);
    expect(planned('24h')).toBeGreaterThanOrEqual(600);
    expect(planned('24h')).toBeLessThanOrEqual(900);
    expect(planned('15m', 'station', 'units')).toBeGreaterThan(0);
    h.advance(60_000);
    await h.exporter.scheduler.pollOnce();
    text = await h.exporter.registry.metrics();
    const achieved = (w: string, c: string) =>
      value(
        text,
        `station_exporter_refresh_achieved_seconds{collector="${c}",window="${w}",level="station"}`,
      );
    expect(achieved('15m', 'units')).toBe(60);
    expect(achieved('24h', 'units')).toBe(60);
    expect(achieved('15m', 'summary')).toBe(60);
  });
});
