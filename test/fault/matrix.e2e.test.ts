/**
 * The fault matrix: each fault alone or mixed with healthy endpoints, through the fault proxy
 * in front of the simulator. For each: what /metrics shows during the fault (data age, up,
 * errors by reason), that no healthy station's data is lost, that scrapes stay fast (a loose
 * sanity bound; real targets are in bench/), and recovery within one interval after it ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyFaults } from '../../bench/shared/fault-proxy.ts';
import { INTERVAL_MS, type Rig, sample, scrapeP99, seriesOf, startRig, total } from './setup.ts';

const P = 'station_exporter_';
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Case {
  readonly name: string;
  readonly faults: (r: Rig) => ProxyFaults;
  /** Collectors that must fail while the fault is on; the others must succeed. */
  readonly failing: readonly ('summary' | 'units')[];
  /** Series a drift removes on purpose (a missing field leaves its series out, never 0). */
  readonly missing?: RegExp;
  /** Assertions on /metrics during the fault. */
  readonly during: (text: string, r: Rig) => void;
}

const CASES: Case[] = [
  {
    name: 'all 500s',
    faults: () => ({ status: 500 }),
    failing: ['summary', 'units'],
    during: (t) => {
      expect(sample(t, `${P}upstream_up`)).toBe(0);
      expect(total(t, `${P}upstream_requests_total`, { status_class: '5xx' })).toBeGreaterThan(0);
      expect(sample(t, `${P}upstream_circuit_state`, { endpoint: 'station_summary' })).toBe(2);
      // 500 is not retried: only 502, 503, 504 and 429 are.
      expect(total(t, `${P}upstream_retries_total`)).toBe(0);
    },
  },
  {
    name: '503 on units only, summary healthy',
    faults: () => ({ status: 503, paths: ['/units'] }),
    failing: ['units'],
    during: (t) => {
      expect(
        total(t, `${P}upstream_retries_total`, { endpoint: 'units', status_class: '5xx' }),
      ).toBeGreaterThan(0);
      expect(
        total(t, `${P}upstream_requests_total`, { endpoint: 'station_summary', status_class: '5xx' }),
      ).toBe(0);
    },
  },
  {
    name: '429 with Retry-After',
    faults: () => ({ status: 429, retryAfter: '1' }),
    failing: ['summary', 'units'],
    during: (t) => {
      expect(total(t, `${P}upstream_requests_total`, { status_class: '429' })).toBeGreaterThan(0);
      expect(total(t, `${P}upstream_requests_total`, { status_class: '4xx' })).toBe(0);
      expect(total(t, `${P}upstream_retries_total`, { status_class: '429' })).toBeGreaterThan(0);
      expect(sample(t, `${P}upstream_up`)).toBe(0);
    },
  },
  {
    name: 'answers slower than the timeout on units',
    faults: () => ({ latencyMs: 1500, paths: ['/units'] }),
    failing: ['units'],
    during: (t) => {
      expect(
        total(t, `${P}upstream_requests_total`, { endpoint: 'units', status_class: 'timeout' }),
      ).toBeGreaterThan(0);
    },
  },
  {
    name: 'connection resets on units',
    faults: () => ({ reset: true, paths: ['/units'] }),
    failing: ['units'],
    during: (t) => {
      expect(
        total(t, `${P}upstream_requests_total`, { endpoint: 'units', status_class: 'network' }),
      ).toBeGreaterThan(0);
    },
  },
  {
    name: 'drift: data as an object',
    faults: () => ({ drift: 'data-object', paths: ['/units'] }),
    failing: ['units'],
    during: (t) => {
      expect(
        total(t, `${P}upstream_requests_total`, { endpoint: 'units', status_class: 'invalid_body' }),
      ).toBeGreaterThan(0);
    },
  },
  {
    name: 'drift: renamed fields',
    faults: () => ({ drift: 'renamed-fields' }),
    failing: [],
    missing: /^station_first_pass_yield_ratio\{/,
    during: (t, r) => {
      expect(total(t, `${P}records_skipped_total`, { endpoint: 'units' })).toBeGreaterThan(0);
      // One log line per reason per poll, not one per answer.
      const lines = r.logs.filter((l) => l.includes('skipped at the edge'));
      expect(lines.length).toBeLessThanOrEqual(6);
      expect(lines.length).toBeGreaterThan(0);
    },
  },
  {
    name: 'drift: numbers as strings',
    faults: () => ({ drift: 'string-numbers', paths: ['/station'] }),
    failing: [],
    during: (t) => {
      expect(sample(t, `${P}collector_success`, { collector: 'units' })).toBe(1);
    },
  },
  {
    name: 'oversized summary answers',
    faults: () => ({ oversizeBytes: 2 * 1024 * 1024, paths: ['/station'] }),
    failing: ['summary'],
    during: (t) => {
      expect(
        total(t, `${P}upstream_requests_total`, { endpoint: 'station_summary', status_class: 'too_large' }),
      ).toBeGreaterThan(0);
    },
  },
  {
    name: 'gzip answers (healthy)',
    faults: () => ({ gzip: true }),
    failing: [],
    during: (t) => {
      expect(sample(t, `${P}upstream_up`)).toBe(1);
    },
  },
];

describe('fault matrix', () => {
  it.each(CASES)('$name', async (c) => {
    rig = await startRig();
    const r = rig;
    await r.poll();
    const before = await r.scrape();
    const baseline = new Map(r.stations.map((id) => [id, seriesOf(before, id).length]));
    expect([...baseline.values()].every((n) => n > 0)).toBe(true);

    r.proxy.set(c.faults(r));
    r.logs.length = 0;
    r.advance(INTERVAL_MS);
    await r.poll();
    const during = await r.scrape();
    for (const collector of ['summary', 'units'] as const) {
      const want = c.failing.includes(collector) ? 0 : 1;
      expect(sample(during, `${P}collector_success`, { collector }), collector).toBe(want);
      // Data age tells the truth: one interval for a failed collector, 0 for a fresh one.
      expect(sample(during, `${P}collector_data_age_seconds`, { collector })).toBe(
        want === 1 ? 0 : INTERVAL_MS / 1000,
      );
    }
    c.during(during, r);
    // Within max_staleness no station's data is lost, failing or not.
    for (const [id, n] of baseline) {
      const kept = seriesOf(during, id).filter((l) => !c.missing?.test(l));
      const want = seriesOf(before, id).filter((l) => !c.missing?.test(l));
      expect(kept.length, id).toBe(want.length);
      expect(n).toBeGreaterThanOrEqual(kept.length);
    }
    if (c.missing) expect(during.split('\n').some((l) => c.missing?.test(l))).toBe(false);
    expect(await scrapeP99(r)).toBeLessThan(1000);

    r.proxy.set({});
    r.advance(INTERVAL_MS);
    await r.poll();
    const after = await r.scrape();
    for (const collector of ['summary', 'units']) {
      expect(sample(after, `${P}collector_success`, { collector }), `${collector} recovered`).toBe(1);
      expect(sample(after, `${P}collector_data_age_seconds`, { collector })).toBe(0);
    }
    expect(sample(after, `${P}upstream_up`)).toBe(1);
    expect(total(after, `${P}upstream_circuit_state`)).toBe(0);
  });

  it('drops a failing collector past max_staleness and brings it back when the fault ends', async () => {
    rig = await startRig();
    const r = rig;
    await r.poll();
    r.proxy.set({ status: 503, paths: ['/units'] });
    for (let i = 0; i < 6; i++) {
      r.advance(INTERVAL_MS);
      await r.poll();
    }
    const during = await r.scrape();
    expect(during).not.toContain('station_unit_records{');
    expect(sample(during, `${P}collector_stale`, { collector: 'units' })).toBe(1);
    expect(sample(during, `${P}collector_data_age_seconds`, { collector: 'units' })).toBe(60);
    expect(sample(during, `${P}collector_failed_requests_ratio`, { collector: 'units' })).toBe(1);
    // The healthy collector is untouched.
    expect(during).toContain('station_output_units{');
    r.proxy.set({});
    r.advance(INTERVAL_MS);
    await r.poll();
    const after = await r.scrape();
    expect(after).toContain('station_unit_records{');
    expect(sample(after, `${P}collector_stale`, { collector: 'units' })).toBe(0);
  });

  it('tells the truth through an outage longer than max_staleness, with summary polls that have nothing due', async () => {
    // The site summary (one request) every 3 polls, so that two polls in three ask for nothing.
    rig = await startRig(
      'demo-token',
      {},
      {
        planning: { refresh: { '1h': '30s' } },
        summary: { interval: `${INTERVAL_MS / 1000}s`, levels: ['site'], skip_idle: false },
      },
    );
    const r = rig;
    await r.poll();
    const COLLECTORS = ['summary', 'units'] as const;
    const requestsBefore = new Map<string, number>();
    const first = await r.scrape();
    for (const c of COLLECTORS)
      requestsBefore.set(c, sample(first, `${P}collector_requests_total`, { collector: c }) ?? 0);
    // 150 s of 500s against the default bound of 5 intervals (50 s); the circuits open on the way.
    r.proxy.set({ status: 500 });
    const seen = new Map(
      COLLECTORS.map((c) => [c, { age: [] as number[], success: [] as number[], stale: [] as number[] }]),
    );
    let summaryIdle = 0;
    for (let i = 1; i <= 15; i++) {
      r.advance(INTERVAL_MS);
      r.logs.length = 0;
      await r.poll();
      const text = await r.scrape();
      for (const c of COLLECTORS) {
        seen.get(c)?.age.push(sample(text, `${P}collector_data_age_seconds`, { collector: c }) ?? -1);
        seen.get(c)?.success.push(sample(text, `${P}collector_success`, { collector: c }) ?? -1);
        seen.get(c)?.stale.push(sample(text, `${P}collector_stale`, { collector: c }) ?? -1);
        // Requests and failures in one unit: every request of the outage brought no answer.
        const requests =
          (sample(text, `${P}collector_requests_total`, { collector: c }) ?? 0) -
          (requestsBefore.get(c) ?? 0);
        expect(sample(text, `${P}collector_request_failures_total`, { collector: c }), c).toBe(requests);
      }
      // A summary poll that asked for something logs its failed requests; one with nothing due does not.
      if (!r.logs.some((l) => l.includes('summary poll had failed requests'))) summaryIdle++;
    }
    expect(sample(await r.scrape(), `${P}upstream_circuit_state`, { endpoint: 'units' })).toBe(2);
    for (const c of COLLECTORS) {
      const { age, success, stale } = seen.get(c) ?? { age: [], success: [], stale: [] };
      expect(age, c).toEqual(age.map((_, i) => ((i + 1) * INTERVAL_MS) / 1000));
      // Success 0 from the first poll that asks for something (within a refresh), never back to 1.
      const firstFailed = success.indexOf(0);
      expect(firstFailed, c).toBeGreaterThanOrEqual(0);
      expect(firstFailed, c).toBeLessThan(3);
      expect(success.slice(firstFailed), c).toEqual(success.slice(firstFailed).map(() => 0));
      // Once stale, stale for good; never before the 50 s bound, and surely once the last poll that
      // kept it (the healthy one, or one with nothing due right after it: at most 2) is 50 s old.
      const first = stale.indexOf(1);
      expect(first, c).toBeGreaterThan(0);
      expect(stale.slice(first), c).toEqual(stale.slice(first).map(() => 1));
      stale.forEach((v, i) => {
        if (age[i]! <= 50) expect(v, `${c} at ${age[i]} s`).toBe(0);
        if (age[i]! > 50 + 2 * (INTERVAL_MS / 1000)) expect(v, `${c} at ${age[i]} s`).toBe(1);
      });
    }
    const during = await r.scrape();
    expect(during).not.toContain('station_unit_records{');
    expect(during).not.toMatch(/^station_site_unique_units\{/m);
    // Some summary polls had nothing due: they did not reset the age or bring success back.
    expect(summaryIdle).toBeGreaterThan(0);

    r.proxy.set({});
    for (let i = 0; i < 3; i++) {
      r.advance(INTERVAL_MS);
      await r.poll();
    }
    const after = await r.scrape();
    for (const c of COLLECTORS) {
      expect(sample(after, `${P}collector_stale`, { collector: c }), c).toBe(0);
      expect(sample(after, `${P}collector_success`, { collector: c }), c).toBe(1);
    }
    expect(after).toContain('station_unit_records{');
  });

  it('isolates stations refused with 403: reports them, keeps the rest, stops splitting, re-probes', async () => {
    rig = await startRig();
    const r = rig;
    await r.poll();
    const refused = r.stations.slice(0, 2);
    const healthy = r.stations.slice(2);
    const before = await r.scrape();
    r.proxy.set({ refuse: refused });
    r.advance(INTERVAL_MS);
    await r.poll();
    r.advance(INTERVAL_MS);
    const unitsBefore = r.proxy.counts.get('/units') ?? 0;
    await r.poll();
    // Known refusals are left out: the accessible stations' one request, no split.
    expect((r.proxy.counts.get('/units') ?? 0) - unitsBefore).toBe(1);
    const during = await r.scrape();
    expect(sample(during, `${P}stations_refused`)).toBe(2);
    expect(sample(during, `${P}collector_success`, { collector: 'units' })).toBe(1);
    expect(sample(during, `${P}collector_success`, { collector: 'summary' })).toBe(1);
    for (const id of healthy) expect(seriesOf(during, id).length).toBe(seriesOf(before, id).length);
    // The site is still summarised, over its accessible stations, and counted as partial.
    expect(during).toMatch(/^station_site_output_units\{/m);
    expect(sample(during, `${P}aggregate_requests_partial`)).toBeGreaterThan(0);
    expect(r.logs.some((l) => l.includes('refuses these stations'))).toBe(true);
    // Access granted again: the next probe (10 minutes on) finds it.
    r.proxy.set({});
    r.advance(10 * 60_000);
    await r.poll();
    expect(sample(await r.scrape(), `${P}stations_refused`)).toBe(0);
  });
});
