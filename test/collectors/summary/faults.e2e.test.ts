import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExposition } from '../../helpers/exposition.ts';
import { dataExposition, type Harness, startHarness } from '../../helpers/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const config = {
  windows: ['1h'],
  units: { enabled: false },
  measurements: { enabled: false },
  summary: { levels: ['station', 'line'] },
};

async function samples(harness: Harness) {
  return parseExposition(await dataExposition(harness.exporter));
}

describe('summary poll under upstream faults', () => {
  it('leaves out stations the token may not read (403), and reports the poll complete', async () => {
    h = await startHarness({ config });
    const forbidden = h.sim.sim.plant.stations[0]?.id ?? '';
    h.sim.sim.setScenario({ forbiddenStations: [forbidden] });
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    const rows = (await samples(h)).filter((s) => s.name === 'station_unique_units');
    expect(rows.some((s) => s.labels.station_id === forbidden)).toBe(false);
    expect(rows).toHaveLength(h.sim.sim.plant.stations.length - 1);
  });

  it('keeps the last good values when requests fail, and marks the poll failed', async () => {
    h = await startHarness({ config });
    expect(await h.exporter.scheduler.pollOnce()).toBe(true);
    const before = (await samples(h)).filter((s) => s.name.startsWith('station_'));
    h.sim.sim.setScenario({ errorRate: 1 });
    h.advance(60_000);
    expect(await h.exporter.scheduler.pollOnce()).toBe(false);
    const after = (await samples(h)).filter((s) => s.name.startsWith('station_'));
    expect(after).toEqual(before);
    const status = h.exporter.scheduler.status().find((s) => s.name === 'summary');
    expect(status?.lastOk).toBe(false);
    const self = await (await h.exporter.app.request('/metrics')).text();
    expect(self).toContain('station_exporter_collector_success{collector="summary"} 0');
    expect(self).toMatch(
      /station_exporter_upstream_requests_total\{endpoint="station_summary",status_class="5xx"\} [1-9]/,
    );
  });

  it('drops failed series after the staleness bound of five refreshes of their window', async () => {
    // The collector-wide max_staleness (default 5 intervals) would drop everything first.
    h = await startHarness({ config: { ...config, summary: { ...config.summary, max_staleness: '1h' } } });
    await h.exporter.scheduler.pollOnce();
    const held = (await samples(h)).filter((s) => s.name === 'station_unique_units').length;
    h.sim.sim.setScenario({ errorRate: 1 });
    // A 1h window is refreshed every 2m by default: its bound is 10m.
    h.advance(9 * 60_000);
    await h.exporter.scheduler.pollOnce();
    expect((await samples(h)).filter((s) => s.name === 'station_unique_units')).toHaveLength(held);
    h.advance(2 * 60_000);
    await h.exporter.scheduler.pollOnce();
    expect((await samples(h)).filter((s) => s.name === 'station_unique_units')).toHaveLength(0);
  });

  it('skips a level whose station_ids would make the URL too long, and says so', async () => {
    // 60 ids of 24 characters and their commas make a station_ids list longer than 1024 bytes.
    h = await startHarness({
      sim: { scale: { sites: 1, linesPerSite: 1, stationsPerLine: 60 } },
      config,
      upstream: { max_url_length: 1024 },
    });
    await h.exporter.scheduler.pollOnce();
    const all = await samples(h);
    expect(all.filter((s) => s.name === 'station_line_unique_units')).toHaveLength(0);
    expect(all.filter((s) => s.name === 'station_unique_units')).toHaveLength(60);
    const self = await (await h.exporter.app.request('/metrics')).text();
    expect(self).toContain('station_exporter_levels_skipped{level="line",reason="url_too_long"} 1');
  });
});

describe('slow polls', () => {
  it('warns when a poll takes longer than its interval', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    h = await startHarness({
      sim: { scenario: { latencyMs: 1100 }, scale: { sites: 1, linesPerSite: 1, stationsPerLine: 2 } },
      config: { ...config, summary: { interval: '1s', levels: ['station'] } },
      logger,
    });
    await h.exporter.scheduler.pollOnce();
    const warned = lines.map((l) => JSON.parse(l) as { msg: string; collector?: string });
    expect(
      warned.some((l) => l.collector === 'summary' && l.msg.startsWith('poll took longer than its interval')),
    ).toBe(true);
    expect(warned.some((l) => l.collector === 'topology' && l.msg.startsWith('poll took longer'))).toBe(
      false,
    );
  });
});
