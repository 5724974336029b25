import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RecentErrors } from '../../src/app/recent-errors.ts';
import { buildStatusModel } from '../../src/app/status-model.ts';
import { escapeHtml } from '../../src/server/html.ts';
import { formatAge, formatDurationMs, statusPage } from '../../src/server/status-page.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';
import { startHarness } from '../helpers/harness.ts';

describe('recent upstream errors', () => {
  it('keeps the newest N, newest first, and counts every error by endpoint, reason and status', () => {
    let now = 0;
    const ring = new RecentErrors(3, () => now);
    for (let i = 0; i < 5; i++) {
      now = i;
      ring.record(new UpstreamError('units', 'status', { message: `units: HTTP 403 #${i}`, status: 403 }));
    }
    ring.record(new UpstreamError('metrics', 'timeout', { message: 'metrics: no answer' }));
    expect(ring.recent().map((e) => e.message)).toEqual([
      'metrics: no answer',
      'units: HTTP 403 #4',
      'units: HTTP 403 #3',
    ]);
    expect(ring.kinds().map((k) => [k.endpoint, k.reason, k.status, k.count])).toEqual([
      ['metrics', 'timeout', undefined, 1],
      ['units', 'status', 403, 5],
    ]);
  });
});

describe('status page', () => {
  it('escapes every markup character and formats ages', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect([
      formatAge(42_000),
      formatAge(300_000),
      formatAge(3 * 3_600_000),
      formatAge(5 * 86_400_000),
    ]).toEqual(['42 s', '5.0 min', '3.0 h', '5.0 d']);
    // Polls of a few milliseconds read as such, not as "0.0 s".
    expect([2, 25, 999, 1500, 42_000, 900_000].map(formatDurationMs)).toEqual([
      '2 ms',
      '25 ms',
      '999 ms',
      '1.5 s',
      '42 s',
      '15 min',
    ]);
  });

  it('shows the plan in force, the poll durations in ms, and what data age means (wired exporter)', async () => {
    const h = await startHarness({ logger: pino({ level: 'silent' }) });
    try {
      await h.exporter.scheduler.pollOnce();
      const html = await (await h.exporter.app.request('/status')).text();
      expect(html).not.toContain('no plan');
      expect(html).toMatch(/<td>topology<\/td>.*each poll/);
      // Three cadences, each named for what it is, so that 30 s next to 2 min reads as no contradiction.
      expect(html).toMatch(
        />Polls every<\/th>.*>Data refreshed every \(planned\)<\/th>.*>Polls every \(achieved\)<\/th>/,
      );
      // The planned refresh of each planned collector, as the plan metric exports it.
      const text = await (await h.exporter.app.request('/metrics')).text();
      const planned = new Map<string, number[]>();
      for (const m of text.matchAll(
        /^station_exporter_refresh_planned_seconds\{collector="(\w+)"[^}]*\} (\S+)$/gm,
      )) {
        planned.set(m[1]!, [...(planned.get(m[1]!) ?? []), Number(m[2]) * 1000]);
      }
      expect(planned.size).toBeGreaterThan(0);
      for (const [collector, values] of planned) {
        const lo = formatDurationMs(Math.min(...values));
        const hi = formatDurationMs(Math.max(...values));
        const cell = lo === hi ? lo : `${lo} – ${hi}`;
        expect(html, collector).toMatch(
          new RegExp(`<td>${collector}</td>(<td>[^<]*(<span[^>]*>[^<]*</span>)?</td>){2}<td>${cell}</td>`),
        );
      }
      // A poll of the in-process simulator takes milliseconds; no duration reads "0.0 s".
      expect(html).not.toContain('0.0 s');
      expect(html).toMatch(/<td>\d+ ms<\/td>/);
      expect(html).toContain('Data age: how long ago the station');
    } finally {
      await h.close();
    }
  });

  it('builds the tree from the topology: groups as one step, last unit times, refused marks', async () => {
    const h = await startHarness();
    try {
      await h.exporter.scheduler.pollOnce();
      const topology = h.exporter.scheduler.currentTopology()!;
      const refusedId = topology.stations[1]!.id;
      const html = statusPage(
        buildStatusModel({
          version: '1.2.3',
          upstream: 'http://up',
          wallClock: h.now,
          status: () => h.exporter.scheduler.status(),
          topology: () => topology,
          ready: () => true,
          lastUnitTime: (id) => (id === topology.stations[0]!.id ? h.now() - 90_000 : undefined),
          errors: new RecentErrors(5, h.now),
          refused: () => [refusedId.toUpperCase()],
        }),
      );
      // One row per station, one <details> per line, and each group's step cell spans its stations.
      expect(html.match(/<tr[^>]*data-station-id=/g)).toHaveLength(topology.stations.length);
      expect(html.match(/<details class="line/g)).toHaveLength(topology.lines.length);
      for (const g of topology.groups) {
        expect(html).toContain(`<td rowspan="${g.stationIds.length}">`);
      }
      expect(html).toContain('90 s</td>');
      expect(html).toMatch(new RegExp(`<tr class="refused" data-station-id="${refusedId}">`));
      expect(html).toContain(`<code>${refusedId}</code>: listed in /sites, but its data is refused (403)`);
    } finally {
      await h.close();
    }
  });

  it('is served at /status with the units store’s last unit times', async () => {
    const h = await startHarness({ logger: pino({ level: 'silent' }) });
    try {
      expect(await (await h.exporter.app.request('/status')).text()).toContain('No topology yet');
      await h.exporter.scheduler.pollOnce();
      const res = await h.exporter.app.request('/status');
      expect(res.status).toBe(200);
      const html = await res.text();
      // Independently: the newest unit record of the first station, from the simulator's ground truth.
      const st = h.sim.sim.plant.stations[0]!;
      const records = h.sim.sim.unitsBetween([st.id], new Date(h.now() - 86_400_000), new Date(h.now()));
      const newest = new Date(Math.max(...records.map((r) => Date.parse(r.time_created)))).toISOString();
      expect(html).toContain(`data-station-id="${st.id}"`);
      expect(html).toContain(newest.replace('.000Z', 'Z'));
      expect(await (await h.exporter.app.request('/')).text()).toContain('<a href="status">');
    } finally {
      await h.close();
    }
  });

  it('lists the flagged control charts, escaped, and says when there are none', () => {
    const model = {
      now: 0,
      version: 'v',
      upstream: 'http://up',
      ready: true,
      refused: [],
      errors: [],
      recentErrors: [],
      collectors: [],
    };
    expect(statusPage(model)).toContain('Control charts flagged <small>(0)</small>');
    const html = statusPage({
      ...model,
      flaggedCharts: [
        {
          site: 'Austin & Co',
          line: 'SMT 1',
          station: 'ICT <1>',
          stationId: 's"1',
          metric: 'v<b>',
          slot: '2',
          autocorrelation: { phi: 0.314, compensated: true },
          quantized: { resolution: 0.1, sigma: 0.0887 },
        },
        {
          site: 'Austin',
          line: 'SMT 2',
          station: 'AOI',
          stationId: 's2',
          metric: 'i',
          slot: null,
          autocorrelation: { phi: -0.2, compensated: false },
        },
      ],
    });
    expect(html).toContain('Control charts flagged <small>(2)</small>');
    expect(html).toContain(
      '<tr class="flagged" data-station-id="s&quot;1"><td>Austin &amp; Co</td><td>SMT 1</td><td>ICT &lt;1&gt;</td><td>v&lt;b&gt;</td><td>2</td><td>autocorrelated: lag-1 φ = 0.31 (compensated: sigma, h and L widened); quantized: steps of 0.100 against a sigma of 0.0887</td></tr>',
    );
    expect(html).toContain('<td>autocorrelated: lag-1 φ = -0.20 (not compensated)</td>');
    // The table names each chart's site and line (issue 30): a plant has many stations of one name.
    expect(html).toContain('<tr><th>Site</th><th>Line</th><th>Station</th><th>Measurement</th>');
    expect(html).toContain('<td>Austin</td><td>SMT 2</td><td>AOI</td>');
  });

  it('shows the charts the measurements job flags, as /metrics flags them (wired exporter)', async () => {
    const h = await startHarness({
      config: {
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: ['vcc_3v3', 'idle_current', 'board_temp'],
          control: { names: ['.*'], baseline: { rolling: '6h' } },
        },
      },
    });
    try {
      await h.exporter.scheduler.pollOnce();
      const text = await (await h.exporter.app.request('/metrics')).text();
      const flagged = new Set(
        [...text.matchAll(/^station_measurement_control_baseline_flag\{([^}]*)\} 1$/gm)].map((m) =>
          m[1]!.replace(/,?flag="[^"]*"/, ''),
        ),
      );
      const charted = text.match(/^station_measurement_control_center\{/gm)?.length ?? 0;
      expect(charted).toBeGreaterThan(0);
      const html = await (await h.exporter.app.request('/status')).text();
      expect(html).toContain(`Control charts flagged <small>(${flagged.size})</small>`);
      expect(html.match(/<tr class="flagged"/g)?.length ?? 0).toBe(flagged.size);
    } finally {
      await h.close();
    }
  });

  it('renders a plant without visible sites', () => {
    const base = {
      now: 0,
      version: 'v',
      upstream: 'u',
      ready: false,
      refused: [],
      errors: [],
      recentErrors: [],
      collectors: [],
    };
    expect(statusPage({ ...base, sites: [] })).toContain('No sites visible');
  });
});
