/**
 * A real Prometheus scrapes the exporter over HTTPS with basic auth, through the same server
 * and web config code the command line uses, and sees up == 1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../../src/server/http.ts';
import { registerWebConfigMetrics } from '../../src/server/web-config/metrics.ts';
import { watchWebConfig } from '../../src/server/web-config/watch.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';
import { createTestPki, hasOpenssl, type TestPki } from '../helpers/tls.ts';

const enabled = (Boolean(prometheusPath()) && hasOpenssl()) || Boolean(process.env.CI);

describe.skipIf(!enabled)('scraped by a real Prometheus over TLS with basic auth', () => {
  let h: Harness;
  let pki: TestPki;
  let server: RunningHttpServer;
  let prom: RunningPrometheus;
  let wrongProm: RunningPrometheus;

  beforeAll(async () => {
    pki = createTestPki();
    const dir = mkdtempSync(path.join(tmpdir(), 'e2e-tls-'));
    writeFileSync(
      path.join(dir, 'web.yml'),
      `tls_server_config:\n  cert_file: ${pki.file('server.crt')}\n  key_file: ${pki.file('server.key')}\n` +
        `basic_auth_users:\n  prometheus: '${bcrypt.hashSync('scrape-pass', 6)}'\n`,
    );
    h = await startHarness({ config: { windows: ['1h'] } });
    await h.exporter.scheduler.pollOnce();
    const webConfig = await watchWebConfig({
      path: path.join(dir, 'web.yml'),
      logger: pino({ level: 'silent' }),
    });
    registerWebConfigMetrics(h.exporter.registry, webConfig.status);
    server = await startHttpServer({
      fetch: (req, env) => h.exporter.app.fetch(req, env),
      hostname: '127.0.0.1',
      port: 0,
      webConfig,
    });
    const job = (password: string) =>
      `    scheme: https\n    tls_config:\n      ca_file: ${pki.file('ca.crt')}\n` +
      `    basic_auth:\n      username: prometheus\n      password: ${password}\n`;
    prom = await startPrometheus(`127.0.0.1:${server.port}`, { jobYaml: job('scrape-pass') });
    wrongProm = await startPrometheus(`127.0.0.1:${server.port}`, { jobYaml: job('wrong-pass') });
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    await wrongProm?.stop();
    await server?.close();
    await h?.close();
    pki?.close();
  });

  it('gets up == 1 and the data with the right password, up == 0 with a wrong one', async () => {
    await prom.waitFor('up{job="station"}', (r) => r[0]?.value[1] === '1');
    const stations = h.sim.sim.plant.stations.length;
    await prom.waitFor('count(station_info)', (r) => Number(r[0]?.value[1]) === stations);
    const ok = await prom.query('station_exporter_web_config_last_reload_successful');
    expect(ok[0]?.value[1]).toBe('1');
    await wrongProm.waitFor('up{job="station"}', (r) => r[0]?.value[1] === '0');
    expect(await wrongProm.query('count(station_info)')).toEqual([]);
  }, 60_000);
});
