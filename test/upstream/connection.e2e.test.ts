/**
 * The upstream connection against real parts started here: HTTPS upstreams (the simulator
 * behind node:https) with a CA, server and client certificates made by `openssl` (mutual
 * TLS), a wrong CA, an expired and a misnamed certificate; Debian's tinyproxy and a CONNECT
 * proxy written with node:http; redirects to the same and to another origin. Each request goes
 * through the config loader's settings, the UpstreamConnection and the client, as in the
 * exporter.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { getRequestListener } from '@hono/node-server';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { createSimulator } from '../../src/simulator/create.ts';
import { createClient, type SharedClient } from '../../src/upstream/client.ts';
import { UpstreamConnection } from '../../src/upstream/connection.ts';
import { freePort } from '../helpers/prometheus.ts';
import { createTestPki, hasOpenssl, type TestPki } from '../helpers/tls.ts';

const hasTinyproxy = () => spawnSync('tinyproxy', ['-v']).status === 0;
// Under CI a missing openssl or tinyproxy fails these tests instead of skipping them.
const enabled = (hasOpenssl() && hasTinyproxy()) || Boolean(process.env.CI);

/** One request as an upstream saw it. */
interface Seen {
  readonly path: string;
  readonly authorization: string | null;
  /** Common name of the client certificate, when one was presented. */
  readonly clientCn: string | undefined;
}

interface Upstream {
  readonly url: string;
  readonly port: number;
  readonly seen: Seen[];
  close(): Promise<void>;
}

interface UpstreamOptions {
  /** Server TLS options; plain HTTP without. */
  readonly tls?: https.ServerOptions;
  /** Where a path is redirected to (302), if anywhere. */
  readonly redirect?: (path: string) => string | undefined;
}

/** The simulator (token `demo-token`) on a loopback socket, recording every request. */
async function startUpstream(opts: UpstreamOptions): Promise<Upstream> {
  const sim = createSimulator({ seed: 7 });
  const seen: Seen[] = [];
  const listener = getRequestListener((req: Request, env: { incoming: { socket: unknown } }) => {
    const url = new URL(req.url);
    const socket = env.incoming.socket as Partial<TLSSocket>;
    const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
    seen.push({
      path: url.pathname,
      authorization: req.headers.get('authorization'),
      clientCn: cert?.subject?.CN as string | undefined,
    });
    const to = opts.redirect?.(url.pathname);
    if (to !== undefined) return new Response(null, { status: 302, headers: { location: to } });
    return sim.app.fetch(req);
  });
  const server = opts.tls ? https.createServer(opts.tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A CONNECT proxy written here, recording each CONNECT's target and headers. */
interface ConnectProxy {
  readonly url: string;
  readonly connects: Array<{ target: string; headers: NodeJS.Dict<string[]> }>;
  close(): Promise<void>;
}

async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: ConnectProxy['connects'] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = req.url ?? '';
    connects.push({ target, headers: req.headersDistinct });
    const [host, port] = target.split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Debian's tinyproxy in the foreground, logging each request line to a file. */
interface Tinyproxy {
  readonly url: string;
  /** The CONNECT request lines tinyproxy logged so far. */
  connectLines(): string[];
  stop(): Promise<void>;
}

async function startTinyproxy(dir: string): Promise<Tinyproxy> {
  const port = await freePort();
  const log = path.join(dir, 'tinyproxy.log');
  const conf = path.join(dir, 'tinyproxy.conf');
  writeFileSync(
    conf,
    // No ConnectPort line: CONNECT is allowed to any port (the upstreams listen on random ones).
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 20',
      'Allow 127.0.0.1',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', conf], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitForPort(port, exited);
  return {
    url: `http://127.0.0.1:${port}`,
    connectLines: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => /Request \(file descriptor \d+\): CONNECT /.test(l)),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves once `port` accepts a connection; rejects if the process exits first. */
async function waitForPort(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    if (gone) throw new Error('tinyproxy exited before it listened');
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** Certificates beyond the shared test PKI: expired, and for a DNS name only. */
function extraCertificates(pki: TestPki): void {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
  writeFileSync(
    path.join(pki.dir, 'extra.cnf'),
    [
      '[named]',
      'subjectAltName=DNS:upstream.test',
      'extendedKeyUsage=serverAuth',
      '[ca]',
      'default_ca=testca',
      '[testca]',
      'database=index.txt',
      'new_certs_dir=.',
      'serial=serial.txt',
      'default_md=sha256',
      'policy=anything',
      '[anything]',
      'commonName=supplied',
      '[expired_ext]',
      'subjectAltName=IP:127.0.0.1',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  writeFileSync(path.join(pki.dir, 'index.txt'), '');
  writeFileSync(path.join(pki.dir, 'serial.txt'), '1000\n');
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  for (const name of ['named', 'expired']) {
    run(['req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  }
  run([
    'x509',
    '-req',
    '-in',
    'named.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'named.crt',
    '-days',
    '2',
    '-extfile',
    'extra.cnf',
    '-extensions',
    'named',
  ]);
  // `openssl ca` is the one that takes explicit dates: valid for January 2020 only.
  run([
    'ca',
    '-batch',
    '-config',
    'extra.cnf',
    '-cert',
    'ca.crt',
    '-keyfile',
    'ca.key',
    '-in',
    'expired.csr',
    '-out',
    'expired.crt',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200201000000Z',
    '-extfile',
    'extra.cnf',
    '-extensions',
    'expired_ext',
    '-notext',
  ]);
}

describe.skipIf(!enabled)('upstream connection: TLS, proxies, redirects against real servers', () => {
  let pki: TestPki;
  let mtls: Upstream;
  let expired: Upstream;
  let named: Upstream;
  let tls12: Upstream;
  let plain: Upstream;
  let tinyproxy: Tinyproxy;
  let proxy: ConnectProxy;
  const clients: SharedClient[] = [];

  beforeAll(async () => {
    pki = createTestPki();
    extraCertificates(pki);
    const serverTls = (name: string) => ({ cert: pki.pem(`${name}.crt`), key: pki.pem(`${name}.key`) });
    // Mutual TLS: a client without a certificate signed by ca.crt is refused in the handshake.
    mtls = await startUpstream({
      tls: { ...serverTls('server'), ca: pki.pem('ca.crt'), requestCert: true, rejectUnauthorized: true },
    });
    expired = await startUpstream({ tls: serverTls('expired') });
    named = await startUpstream({ tls: serverTls('named') });
    tls12 = await startUpstream({ tls: { ...serverTls('server'), maxVersion: 'TLSv1.2' } });
    plain = await startUpstream({ tls: serverTls('server') });
    tinyproxy = await startTinyproxy(pki.dir);
    proxy = await startConnectProxy();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([mtls, expired, named, tls12, plain].map((u) => u?.close()));
    await tinyproxy?.stop();
    await proxy?.close();
    pki?.close();
  });

  /** A client with the connection the exporter would make from this `upstream` config. */
  function clientFor(
    upstream: Record<string, unknown>,
    deps: ConstructorParameters<typeof UpstreamConnection>[1] = {},
  ) {
    const config = configFromObject(
      { upstream: { token: 'demo-token', retry: { max_attempts: 1 }, ...upstream } },
      { baseDir: pki.dir, source: 'test' },
    );
    const connection = new UpstreamConnection(config.upstream.connection, deps);
    const client = createClient({
      baseUrl: config.upstream.baseUrl,
      token: () => 'demo-token',
      timeoutMs: 15_000,
      connection,
    });
    clients.push(client);
    return { client, connection };
  }

  const clientCert = { cert_file: 'client.crt', key_file: 'client.key' };

  /** The proxy environment exactly `vars` (upper case names), whatever the machine's holds. */
  function proxyEnv(vars: Partial<Record<'HTTPS_PROXY' | 'HTTP_PROXY' | 'NO_PROXY', string>>) {
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'] as const) {
      vi.stubEnv(name, vars[name] ?? '');
      vi.stubEnv(name.toLowerCase(), '');
    }
  }
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => 'no error',
      (err: Error) => err.message,
    );

  it('talks mutual TLS with the CA and client certificate files', async () => {
    const { client } = clientFor({ base_url: mtls.url, tls_config: { ca_file: 'ca.crt', ...clientCert } });
    const sites = await client.listSites();
    expect(sites.records.length).toBeGreaterThan(0);
    expect(mtls.seen.at(-1)).toMatchObject({
      path: '/sites',
      authorization: 'Bearer demo-token',
      clientCn: 'client',
    });
  });

  it('names the missing client certificate when the upstream requires one', async () => {
    const { client } = clientFor({ base_url: mtls.url, tls_config: { ca_file: 'ca.crt' } });
    expect(await failure(client.listSites())).toBe(
      'sites: request failed: other side closed (the upstream closed the connection without answering; one that requires a client certificate does so when none is sent: set upstream.tls_config.cert_file and key_file)',
    );
  });

  it('says a certificate from an untrusted CA cannot be verified, and what to set', async () => {
    const hint =
      "(the upstream's certificate is not signed by a CA the exporter trusts: set upstream.tls_config.ca_file to the CA that signed it)";
    // A server that sends its certificate alone.
    const alone = clientFor({ base_url: plain.url, tls_config: { ca_file: 'otherca.crt' } }).client;
    // Node 24 adds a word about --use-system-ca between the two.
    const aloneError = await failure(alone.listSites());
    expect(aloneError).toMatch(/^sites: request failed: unable to verify the first certificate\b/);
    expect(aloneError.endsWith(` ${hint}`)).toBe(true);
    // One that sends its CA along (node:https does, when it holds the CA for client certificates).
    const chain = clientFor({
      base_url: mtls.url,
      tls_config: { ca_file: 'otherca.crt', ...clientCert },
    }).client;
    expect(await failure(chain.listSites())).toBe(
      `sites: request failed: self-signed certificate in certificate chain ${hint}`,
    );
  });

  it('says an expired certificate has expired', async () => {
    const { client } = clientFor({ base_url: expired.url, tls_config: { ca_file: 'ca.crt' } });
    expect(await failure(client.listSites())).toBe(
      "sites: request failed: certificate has expired (the upstream's certificate is past its end date: the server needs a renewed one)",
    );
  });

  it('checks the certificate against server_name instead of the URL host', async () => {
    const without = clientFor({ base_url: named.url, tls_config: { ca_file: 'ca.crt' } }).client;
    expect(await failure(without.listSites())).toMatch(
      /^sites: request failed: Hostname\/IP does not match certificate's altnames: .*set upstream\.tls_config\.server_name\)$/,
    );
    const withName = clientFor({
      base_url: named.url,
      tls_config: { ca_file: 'ca.crt', server_name: 'upstream.test' },
    }).client;
    expect((await withName.listSites()).records.length).toBeGreaterThan(0);
  });

  it('accepts any certificate with insecure_skip_verify', async () => {
    const { client } = clientFor({ base_url: expired.url, tls_config: { insecure_skip_verify: true } });
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
  });

  it('refuses a server below min_version', async () => {
    const { client } = clientFor({
      base_url: tls12.url,
      tls_config: { ca_file: 'ca.crt', min_version: 'TLS13' },
    });
    expect(await failure(client.listSites())).toMatch(
      /check upstream\.tls_config\.min_version and max_version\)$/,
    );
    const ok = clientFor({
      base_url: tls12.url,
      tls_config: { ca_file: 'ca.crt', min_version: 'TLS12' },
    }).client;
    expect((await ok.listSites()).records.length).toBeGreaterThan(0);
  });

  it('uses a changed CA file for new requests, and keeps the last good one when it turns bad', async () => {
    const trust = path.join(pki.dir, 'trust.crt');
    copyFileSync(pki.file('otherca.crt'), trust);
    const reports: Array<string | undefined> = [];
    const { client, connection } = clientFor(
      { base_url: mtls.url, tls_config: { ca_file: 'trust.crt', ...clientCert } },
      { onFileError: (reason) => reports.push(reason) },
    );
    expect(await failure(client.listSites())).toContain('not signed by a CA the exporter trusts');
    const first = await connection.dispatcher();

    copyFileSync(pki.file('ca.crt'), trust);
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    const renewed = await connection.dispatcher();
    expect(renewed).not.toBe(first);

    writeFileSync(trust, 'not a certificate\n');
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    expect(await connection.dispatcher()).toBe(renewed);
    expect(reports.at(-1)).toBe(`upstream.tls_config.ca_file ${trust}: holds no PEM certificate`);

    copyFileSync(pki.file('ca.crt'), trust);
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    expect(reports.at(-1)).toBeUndefined();
    expect(reports).toEqual([`upstream.tls_config.ca_file ${trust}: holds no PEM certificate`, undefined]);
  });

  it('goes through tinyproxy with CONNECT when proxy_url is set', async () => {
    const before = tinyproxy.connectLines().length;
    const { client } = clientFor({
      base_url: mtls.url,
      tls_config: { ca_file: 'ca.crt', ...clientCert },
      proxy_url: tinyproxy.url,
    });
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    const lines = tinyproxy.connectLines().slice(before);
    expect(lines.some((l) => l.includes(`CONNECT 127.0.0.1:${mtls.port} HTTP/1.1`))).toBe(true);
  });

  it('goes around the proxy for a host in no_proxy', async () => {
    const before = tinyproxy.connectLines().length;
    const { client } = clientFor({
      base_url: mtls.url,
      tls_config: { ca_file: 'ca.crt', ...clientCert },
      proxy_url: tinyproxy.url,
      no_proxy: 'stations.example.com,127.0.0.1',
    });
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    expect(tinyproxy.connectLines().length).toBe(before);
  });

  it('takes the proxy from HTTPS_PROXY with proxy_from_environment, with proxy_connect_header', async () => {
    proxyEnv({ HTTPS_PROXY: proxy.url });
    const { client } = clientFor({
      base_url: mtls.url,
      tls_config: { ca_file: 'ca.crt', ...clientCert },
      proxy_from_environment: true,
      proxy_connect_header: {
        'X-Plant': ['berlin', 'line-1'],
        'Proxy-Authorization': ['Basic cGxhbnQ6cHc='],
      },
    });
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    expect(proxy.connects.at(-1)).toMatchObject({
      target: `127.0.0.1:${mtls.port}`,
      headers: { 'x-plant': ['berlin', 'line-1'], 'proxy-authorization': ['Basic cGxhbnQ6cHc='] },
    });
    // The bearer token is for the upstream only: it travels inside the tunnel, never to the proxy.
    expect(JSON.stringify(proxy.connects)).not.toContain('demo-token');
  });

  it('honours NO_PROXY with proxy_from_environment', async () => {
    const before = proxy.connects.length;
    proxyEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    const { client } = clientFor({
      base_url: mtls.url,
      tls_config: { ca_file: 'ca.crt', ...clientCert },
      proxy_from_environment: true,
    });
    expect((await client.listSites()).records.length).toBeGreaterThan(0);
    expect(proxy.connects.length).toBe(before);
  });

  describe('the whole exporter', () => {
    const exporterFor = (upstream: Record<string, unknown>) =>
      wireExporter(
        configFromObject(
          {
            upstream: {
              base_url: mtls.url,
              token: 'demo-token',
              retry: { max_attempts: 1 },
              max_requests_per_second: 10_000,
              concurrency: 8,
              ...upstream,
            },
            windows: ['1h'],
          },
          { baseDir: pki.dir, source: 'test' },
        ),
        { logger: pino({ level: 'silent' }) },
      );

    it('polls through tinyproxy over mutual TLS', async () => {
      const before = tinyproxy.connectLines().length;
      const seen = mtls.seen.length;
      const exporter = exporterFor({
        tls_config: { ca_file: 'ca.crt', ...clientCert },
        proxy_url: tinyproxy.url,
      });
      try {
        await exporter.scheduler.pollOnce();
        const polled = mtls.seen.slice(seen);
        expect(polled.map((r) => r.path)).toContain('/sites');
        expect(polled.every((r) => r.clientCn === 'client')).toBe(true);
        expect(tinyproxy.connectLines().slice(before).join('\n')).toContain(
          `CONNECT 127.0.0.1:${mtls.port} `,
        );
      } finally {
        await exporter.close();
      }
    });

    it('shows the cause of a TLS failure on the status page', async () => {
      const exporter = exporterFor({ tls_config: { ca_file: 'otherca.crt', ...clientCert } });
      try {
        await exporter.scheduler.pollOnce();
        const page = await (await exporter.app.request('/status')).text();
        expect(page).toContain('self-signed certificate in certificate chain');
        expect(page).toContain('set upstream.tls_config.ca_file to the CA that signed it');
        expect(page).not.toContain('demo-token');
      } finally {
        await exporter.close();
      }
    });
  });

  describe('redirects', () => {
    let other: Upstream;
    let origin: Upstream;

    beforeAll(async () => {
      other = await startUpstream({});
      origin = await startUpstream({
        redirect: (p) => {
          if (p.startsWith('/moved/')) return p.slice('/moved'.length);
          if (p.startsWith('/away/')) return `${other.url}${p.slice('/away'.length)}`;
          return undefined;
        },
      });
    });

    afterAll(async () => {
      await other?.close();
      await origin?.close();
    });

    it('keeps the token on a redirect within the origin', async () => {
      const { client } = clientFor({ base_url: `${origin.url}/moved` });
      expect((await client.listSites()).records.length).toBeGreaterThan(0);
      expect(origin.seen.slice(-2)).toEqual([
        { path: '/moved/sites', authorization: 'Bearer demo-token', clientCn: undefined },
        { path: '/sites', authorization: 'Bearer demo-token', clientCn: undefined },
      ]);
    });

    it('follows a redirect to another origin without the token', async () => {
      const { client } = clientFor({ base_url: `${origin.url}/away` });
      // The other origin's simulator wants the token too, and did not get it.
      expect(await failure(client.listSites())).toMatch(/^sites: authentication failed \(HTTP 401\)/);
      expect(origin.seen.at(-1)).toMatchObject({ path: '/away/sites', authorization: 'Bearer demo-token' });
      expect(other.seen).toEqual([{ path: '/sites', authorization: null, clientCn: undefined }]);
    });

    it('does not follow redirects with follow_redirects: false, and says so', async () => {
      const { client } = clientFor({ base_url: `${origin.url}/moved`, follow_redirects: false });
      const before = origin.seen.length;
      expect(await failure(client.listSites())).toBe(
        'sites: HTTP 302: a redirect not followed (upstream.follow_redirects is false, or more than 10 in a row)',
      );
      expect(origin.seen.slice(before).map((s) => s.path)).toEqual(['/moved/sites']);
    });
  });
});
