/**
 * The exporter's HTTP surface over real sockets: HTTPS with a test PKI made by openssl, basic
 * auth, client certificates, rate limit, headers, certificate renewal, methods, timeouts and
 * the connection cap.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import bcrypt from 'bcryptjs';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  type RunningHttpServer,
  startHttpServer,
} from '../../src/server/http.ts';
import { watchWebConfig } from '../../src/server/web-config/watch.ts';
import { exporterApp } from '../helpers/http-app.ts';
import { createTestPki, hasOpenssl, type TestPki } from '../helpers/tls.ts';

const logger = pino({ level: 'silent' });
const HASH = bcrypt.hashSync('s3cret', 4);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  peerFingerprint?: string;
}

interface Req {
  path?: string;
  method?: string;
  auth?: string;
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
}

/** One request on a new connection. */
function call(port: number, opts: Req = {}): Promise<Answer> {
  const base = {
    host: '127.0.0.1',
    port,
    path: opts.path ?? '/metrics',
    method: opts.method ?? 'GET',
    agent: false as const,
  };
  const headers = opts.auth ? { authorization: `Basic ${Buffer.from(opts.auth).toString('base64')}` } : {};
  return new Promise((resolve, reject) => {
    const onRes = (res: import('node:http').IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const peer = (res.socket as TLSSocket).getPeerCertificate?.();
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          peerFingerprint: peer?.fingerprint256,
        });
      });
    };
    const req = opts.tls
      ? httpsRequest({ ...base, headers, ca: opts.tls.ca, cert: opts.tls.cert, key: opts.tls.key }, onRes)
      : httpRequest({ ...base, headers }, onRes);
    req.on('error', reject);
    req.end();
  });
}

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => {
    // Flowing, so that the end of the stream is read and 'close' follows.
    socket.resume();
    if (socket.destroyed) resolve();
    socket.once('close', () => resolve());
  });

let servers: RunningHttpServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serveApp(
  opts: { webConfig?: Awaited<ReturnType<typeof watchWebConfig>>; limits?: HttpLimits } = {},
) {
  const app = exporterApp();
  const s = await startHttpServer({
    fetch: (req, env) => app.fetch(req, env),
    hostname: '127.0.0.1',
    port: 0,
    logger,
    ...opts,
  });
  servers.push(s);
  return s;
}

describe.skipIf(!hasOpenssl() && !process.env.CI)('HTTPS with a web config', () => {
  let pki: TestPki;
  let dir: string;
  let now = 0;
  // The watcher's re-reads and the rate limit go by the wall clock, moved by the tests.
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockImplementation(() => now);
  });
  beforeAll(() => {
    pki = createTestPki();
    dir = mkdtempSync(path.join(tmpdir(), 'webcfg-'));
  });
  afterAll(() => pki?.close());

  /** Writes web.yml next to copies of the server certificate and key, and watches it. */
  function webConfig(extra: string, tls = 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n') {
    copyFileSync(pki.file('server.crt'), path.join(dir, 'tls.crt'));
    copyFileSync(pki.file('server.key'), path.join(dir, 'tls.key'));
    writeFileSync(path.join(dir, 'web.yml'), `${tls}${extra}`);
    return watchWebConfig({ path: path.join(dir, 'web.yml'), logger });
  }
  const ca = () => ({ ca: pki.pem('ca.crt') });

  it('asks for basic auth on every path and sets the configured headers, also on refusals', async () => {
    const s = await serveApp({
      webConfig: await webConfig(
        `basic_auth_users:\n  prometheus: '${HASH}'\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Content-Type-Options: nosniff\n    Strict-Transport-Security: max-age=31536000\n`,
      ),
    });
    expect(s.tls).toBe(true);
    for (const p of ['/metrics', '/', '/-/healthy', '/nope']) {
      const r = await call(s.port, { path: p, tls: ca() });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Basic realm="station-exporter"/);
    }
    expect((await call(s.port, { tls: ca(), auth: 'prometheus:wrong' })).status).toBe(401);
    expect((await call(s.port, { tls: ca(), auth: 'nobody:s3cret' })).status).toBe(401);
    const denied = await call(s.port, { tls: ca() });
    expect(denied.headers['x-frame-options']).toBe('deny');
    const ok = await call(s.port, { tls: ca(), auth: 'prometheus:s3cret' });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('station_exporter_build_info{version="9.9.9"');
    expect(ok.headers['x-frame-options']).toBe('deny');
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    expect(ok.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(ok.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    // The server certificate is the one from the file, verified against the test CA.
    await expect(call(s.port, {})).rejects.toThrow();
  });

  it('requires a client certificate from the configured CA with RequireAndVerifyClientCert', async () => {
    const s = await serveApp({
      webConfig: await webConfig(
        '',
        `tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${pki.file('ca.crt')}\n`,
      ),
    });
    await expect(call(s.port, { tls: ca() })).rejects.toThrow();
    await expect(
      call(s.port, { tls: { ...ca(), cert: pki.pem('rogue.crt'), key: pki.pem('rogue.key') } }),
    ).rejects.toThrow();
    const ok = await call(s.port, {
      tls: { ...ca(), cert: pki.pem('client.crt'), key: pki.pem('client.key') },
    });
    expect(ok.status).toBe(200);
  });

  it('with VerifyClientCertIfGiven, accepts no certificate but refuses one from another CA', async () => {
    const s = await serveApp({
      webConfig: await webConfig(
        '',
        `tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ${pki.file('ca.crt')}\n`,
      ),
    });
    expect((await call(s.port, { tls: ca() })).status).toBe(200);
    expect(
      (await call(s.port, { tls: { ...ca(), cert: pki.pem('client.crt'), key: pki.pem('client.key') } }))
        .status,
    ).toBe(200);
    const rogue = await call(s.port, {
      tls: { ...ca(), cert: pki.pem('rogue.crt'), key: pki.pem('rogue.key') },
    });
    expect(rogue.status).toBe(403);
  });

  it('answers 429 with Retry-After past the burst', async () => {
    now = 0;
    const s = await serveApp({
      webConfig: await webConfig('rate_limit:\n  interval: 10s\n  burst: 2\n'),
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await call(s.port, { path: '/-/healthy', tls: ca() }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(statuses[2]?.headers['retry-after']).toBe('10');
    now += 10_000;
    expect((await call(s.port, { path: '/-/healthy', tls: ca() })).status).toBe(200);
  });

  it('serves a renewed certificate and a new user once re-read, without a restart', async () => {
    now = 0;
    const source = await webConfig(`basic_auth_users:\n  old: '${HASH}'\n`);
    const s = await serveApp({ webConfig: source });
    const first = await call(s.port, { tls: ca(), auth: 'old:s3cret' });
    expect(first.status).toBe(200);
    copyFileSync(pki.file('server2.crt'), path.join(dir, 'tls.crt'));
    copyFileSync(pki.file('server2.key'), path.join(dir, 'tls.key'));
    writeFileSync(
      path.join(dir, 'web.yml'),
      `tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\nbasic_auth_users:\n  new: '${HASH}'\n`,
    );
    // Within the check interval nothing is re-read yet.
    expect((await call(s.port, { tls: ca(), auth: 'old:s3cret' })).peerFingerprint).toBe(
      first.peerFingerprint,
    );
    now += 1000;
    // A connection now starts the re-read in the background; wait for it to land.
    source.current();
    await source.refresh();
    const renewed = await call(s.port, { tls: ca(), auth: 'new:s3cret' });
    expect(renewed.status).toBe(200);
    expect(renewed.peerFingerprint).not.toBe(first.peerFingerprint);
    expect((await call(s.port, { tls: ca(), auth: 'old:s3cret' })).status).toBe(401);
    // A broken renewal keeps serving the last good certificate and users.
    writeFileSync(path.join(dir, 'tls.key'), 'garbage');
    now += 1000;
    source.current();
    await source.refresh();
    const kept = await call(s.port, { tls: ca(), auth: 'new:s3cret' });
    expect(kept.status).toBe(200);
    expect(kept.peerFingerprint).toBe(renewed.peerFingerprint);
    expect(source.status().lastReloadOk).toBe(false);
  });
});

describe('HTTP methods and limits', () => {
  it('answers 405 with Allow for wrong methods on known paths, 404 elsewhere', async () => {
    const s = await serveApp();
    for (const method of ['DELETE', 'PUT', 'POST', 'PATCH', 'OPTIONS']) {
      const r = await call(s.port, { method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
    const reload = await call(s.port, { path: '/-/reload' });
    expect([reload.status, reload.headers.allow]).toEqual([405, 'POST, PUT']);
    expect((await call(s.port, { path: '/metrics/x' })).status).toBe(404);
    expect((await call(s.port, { method: 'HEAD' })).status).toBe(200);
  });

  it('closes connections that send nothing, drip their headers, or sit idle after a request', async () => {
    const s = await serveApp({
      limits: {
        ...DEFAULT_HTTP_LIMITS,
        headerTimeoutMs: 200,
        requestTimeoutMs: 400,
        idleTimeoutMs: 200,
        maxConnections: 100,
      },
    });
    const silent = connect(s.port, '127.0.0.1');
    const drip = connect(s.port, '127.0.0.1');
    drip.on('error', () => {});
    drip.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => drip.writable && drip.write('X-A: b\r\n'), 50);
    const idle = connect(s.port, '127.0.0.1');
    idle.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n');
    let answer = '';
    idle.on('data', (d) => (answer += d));
    await Promise.all([closed(silent), closed(drip), closed(idle)]);
    clearInterval(timer);
    expect(answer).toMatch(/^HTTP\/1.1 200 OK/);
    // The server sees the close a moment after the client does.
    for (let i = 0; i < 100 && s.connections.open() > 0; i++) await new Promise((r) => setImmediate(r));
    expect(s.connections.open()).toBe(0);
  });

  it('keeps a scrape working when idle and slow clients fill the connection cap', async () => {
    const s = await serveApp({ limits: { ...DEFAULT_HTTP_LIMITS, maxConnections: 20 } });
    const hogs: Socket[] = [];
    for (let i = 0; i < 40; i++) {
      const sock = connect(s.port, '127.0.0.1');
      sock.on('error', () => {});
      if (i % 2 === 0) sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
      hogs.push(sock);
      await new Promise((r) => sock.once('connect', r));
    }
    const r = await call(s.port);
    expect(r.status).toBe(200);
    expect(r.body).toContain('station_exporter_build_info');
    expect(s.connections.open()).toBeLessThanOrEqual(20);
    expect(
      s.connections.closed('evicted_idle') + s.connections.closed('evicted_stalled'),
    ).toBeGreaterThanOrEqual(21);
    for (const h of hogs) h.destroy();
  });
});
