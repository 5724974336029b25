/**
 * The token never appears anywhere: a failing run with a distinctive token (a JWT about to
 * expire) through 401s, 500s, 403s, timeouts and drift, at debug level, then everything the
 * exporter emitted is searched for it: log lines, /metrics, pages, reload answers, check-config
 * output and error traces.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCheckConfig } from '../../src/app/commands/check-config.ts';
import { Reloader } from '../../src/app/reload.ts';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { FIXED_NOW } from '../helpers/harness.ts';
import { INTERVAL_MS, sample, startRig } from './setup.ts';

const SIGNATURE = 'zz9PluralZAlphaSECRET4242';
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** Expires one hour after the fixed clock: inside the default 3-day warning margin. */
const TOKEN = `${b64({ alg: 'HS256' })}.${b64({ exp: FIXED_NOW / 1000 + 3600 })}.${SIGNATURE}`;

/** Accept headers of the three exposition formats the server negotiates. */
const FORMATS = [
  'text/plain;version=0.0.4',
  'application/openmetrics-text;version=1.0.0',
  'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited',
];

/**
 * /metrics in every format, twice each (the first protobuf request may be what makes the
 * exporter render protobuf), decoded as Latin-1 so that the token's bytes show in protobuf too.
 */
async function everyFormat(exporter: Exporter): Promise<string[]> {
  const bodies: string[] = [];
  for (const accept of [...FORMATS, ...FORMATS]) {
    await exporter.scheduler.pollOnce();
    const res = await exporter.app.request('/metrics', { headers: { accept } });
    bodies.push(Buffer.from(await res.arrayBuffer()).toString('latin1'));
  }
  return bodies;
}

/** A reloader of `exporter` reading a config file of its own, which the test then writes. */
function reloaderOf(exporter: Exporter) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'secret-')), 'config.yaml');
  const reloader = new Reloader({
    initial: exporter,
    configPath: file,
    wire: (c, previous: Exporter) => wireExporter(c, { previous, logger: previous.logger }),
    logger: exporter.logger,
  });
  return { file, reloader };
}

function leaks(text: string): boolean {
  return text.includes(SIGNATURE) || text.includes(TOKEN);
}

describe('secrets', () => {
  it('never emits the token, and warns before it expires', async () => {
    const rig = await startRig(TOKEN);
    const emitted: string[] = [];
    try {
      await rig.poll();
      for (const faults of [
        { status: 401 },
        { status: 500 },
        { refuse: rig.stations.slice(0, 3) },
        { latencyMs: 1500, paths: ['/units'] },
        { drift: 'renamed-fields' as const },
        { drift: 'data-object' as const },
      ]) {
        rig.proxy.set(faults);
        rig.advance(INTERVAL_MS);
        await rig.poll();
        emitted.push(await rig.scrape(), await rig.scrapeApp());
      }
      const t = await rig.scrape();
      expect(sample(t, 'station_exporter_token_expiring')).toBe(1);
      expect(rig.logs.some((l) => l.includes('token expires soon'))).toBe(true);
      for (const page of ['/', '/-/healthy', '/-/ready', '/metrics']) {
        emitted.push(await (await rig.exporter.app.request(page)).text());
      }
      for (const s of rig.exporter.scheduler.status()) emitted.push(JSON.stringify(s), String(s.lastError));
      // A failing call's whole trace.
      rig.proxy.set({ status: 401 });
      const err = await rig.exporter.upstream.client.listSites().then(
        () => new Error('no failure'),
        (e: unknown) => e as Error,
      );
      expect(err.name).toBe('UpstreamError');
      emitted.push(String(err), err.stack ?? '', JSON.stringify(err));

      // Reload answers: a bad file and a good one, both holding the token.
      const { file, reloader } = reloaderOf(rig.exporter);
      writeFileSync(file, `upstream:\n  base_url: ${rig.proxy.url}\n  token: "${TOKEN}"\n  bogus: 1\n`);
      emitted.push(JSON.stringify(await reloader.reload()));
      writeFileSync(file, `upstream:\n  base_url: ${rig.proxy.url}\n  token: "${TOKEN} x"\n`);
      emitted.push(JSON.stringify(await reloader.reload()));

      // check-config, with a good token and with a broken one.
      const out: string[] = [];
      const spy = (s: string | Uint8Array) => void out.push(String(s));
      const capture = (s: string | Uint8Array) => {
        spy(s);
        return true;
      };
      const so = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
      const se = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
      try {
        writeFileSync(file, `upstream:\n  base_url: ${rig.proxy.url}\n  token: "${TOKEN}"\n`);
        expect(await runCheckConfig(file)).toBe(0);
        writeFileSync(file, `upstream:\n  base_url: ${rig.proxy.url}\n  token: "${TOKEN}\\n${TOKEN}"\n`);
        expect(await runCheckConfig(file)).toBe(2);
      } finally {
        so.mockRestore();
        se.mockRestore();
      }
      expect(out.join('')).toContain('the token contains whitespace');
      emitted.push(...out);
    } finally {
      await rig.close();
    }
    emitted.push(...rig.logs);
    expect(rig.logs.length).toBeGreaterThan(20);
    expect(emitted.filter(leaks)).toEqual([]);
  });
  it('masks label values from an upstream that echoes the Authorization header, caps 256 KiB names, follows renames', async () => {
    const rig = await startRig(TOKEN, { max_response_bytes: 16 * 1024 * 1024, timeout: '20s' });
    const emitted: string[] = [];
    try {
      await rig.poll();
      // Site names and station descriptions carry "Bearer <token>".
      rig.proxy.set({ echoInSites: true, paths: ['/sites'] });
      rig.advance(INTERVAL_MS);
      await rig.poll();
      const echoed = await rig.scrape();
      emitted.push(echoed, await rig.scrapeApp(), ...(await everyFormat(rig.exporter)));
      expect(echoed).toMatch(/station_info\{[^}]*description="last seen by Bearer \[REDACTED\]"/);
      expect(echoed).toMatch(/station_site_unique_units\{site="[^"]* \[Bearer \[REDACTED\]\]"/);
      expect(
        sample(echoed, 'station_exporter_label_values_redacted_total', { reason: 'secret' }),
      ).toBeGreaterThan(0);
      expect(rig.logs.filter((l) => l.includes('label value carried a secret'))).toHaveLength(1);

      // 256 KiB station names: every series of a station would carry its name.
      rig.proxy.set({ stationNameLength: 1 << 18, paths: ['/sites'] });
      rig.advance(INTERVAL_MS);
      await rig.poll();
      const long = await rig.scrape();
      emitted.push(long);
      expect(long.length).toBeLessThan(1 << 18);
      expect(long).toMatch(/station="[^"]{200,}…"/);
      expect(
        sample(long, 'station_exporter_label_values_redacted_total', { reason: 'too_long' }),
      ).toBeGreaterThan(0);

      // A rename shows on every series at the next poll.
      rig.proxy.set({ renameSites: 'Works after rename', paths: ['/sites'] });
      rig.advance(INTERVAL_MS);
      await rig.poll();
      const renamed = await rig.scrape();
      const sites = new Set([...renamed.matchAll(/\bsite="([^"]*)"/g)].map((m) => m[1]));
      expect(sites).toEqual(new Set(['Works after rename']));

      // A reload whose window name carries the token fails and keeps the running config.
      const { file, reloader } = reloaderOf(rig.exporter);
      const windows = `windows: [{ name: "w-${TOKEN}", type: rolling, duration: 1h }]`;
      writeFileSync(file, `upstream:\n  base_url: ${rig.proxy.url}\n  token: "${TOKEN}"\n${windows}\n`);
      const result = await reloader.reload();
      emitted.push(JSON.stringify(result));
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).toContain('windows[0].name: contains a secret');
      expect(reloader.current().config.windows.map((w) => w.name)).toEqual(['1h']);
    } finally {
      await rig.close();
    }
    emitted.push(...rig.logs);
    expect(emitted.filter(leaks)).toEqual([]);
  });
});
