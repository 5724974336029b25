import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bcryptCost } from '../../../src/server/web-config/auth.ts';
import { loadWebConfig, WebConfigError } from '../../../src/server/web-config/load.ts';
import { createTestPki, hasOpenssl, type TestPki } from '../../helpers/tls.ts';
import { ALIAS_BOMB_LINES } from '../../helpers/yaml.ts';

const HASH = bcrypt.hashSync('secret', 4);

/** Loads `yaml` as /etc/web.yml from an in-memory file system. */
function load(yaml: string, files: Record<string, Buffer | string> = {}) {
  const fs: Record<string, Buffer | string> = { '/etc/web.yml': yaml, ...files };
  return loadWebConfig('/etc/web.yml', async (p) => {
    const content = fs[p];
    if (content === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return Buffer.from(content);
  });
}

async function issues(yaml: string, files?: Record<string, Buffer | string>): Promise<readonly string[]> {
  try {
    await load(yaml, files);
  } catch (err) {
    if (err instanceof WebConfigError) return err.issues;
    throw err;
  }
  throw new Error('expected the file to be rejected');
}

describe('web config file', () => {
  it.each(['', '\n\n', '# all commented out\n'])(
    'rejects an empty file %j, which would turn auth off',
    async (yaml) => {
      expect(await issues(yaml)).toEqual([
        'the file is empty (or only comments); an empty web config would turn TLS and basic auth off. Leave out --web.config.file to serve without one',
      ]);
    },
  );

  it('accepts an explicit empty mapping, which turns nothing on', async () => {
    const c = await load('{}\n');
    expect(c.tls).toBeUndefined();
    expect(c.users.size).toBe(0);
    expect(c.rateLimit).toBeUndefined();
    expect(c.headers).toEqual({});
  });

  it('checks unknown users against a dummy hash with the cost of the costliest user', async () => {
    const c = await load(
      `basic_auth_users:\n  a: '${HASH}'\n  b: '${bcrypt.hashSync('x', 6)}'\n  c: '${HASH}'\n`,
    );
    expect(bcryptCost(c.dummyHash)).toBe(6);
    expect(c.dummyHash).toMatch(/^\$2b\$06\$[./A-Za-z0-9]{53}$/);
  });

  it('reads users, rate limit and headers', async () => {
    const c = await load(
      `basic_auth_users:\n  prometheus: '${HASH}'\nrate_limit:\n  interval: 250ms\n  burst: 3\n` +
        'http_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\n    Content-Security-Policy: "default-src \'self\'"\n',
    );
    expect([...c.users.keys()]).toEqual(['prometheus']);
    expect(c.rateLimit).toEqual({ intervalMs: 250, burst: 3 });
    expect(c.headers).toEqual({ 'X-Frame-Options': 'deny', 'Content-Security-Policy': "default-src 'self'" });
  });

  it('treats interval 0 as no rate limit, as exporter-toolkit does', async () => {
    expect((await load('rate_limit:\n  interval: 0s\n  burst: 0\n')).rateLimit).toBeUndefined();
  });

  it.each([
    ['bogus: 1\n', ['bogus: unknown key']],
    [
      'basic_auth_users:\n  alice: plain-password\n',
      ['basic_auth_users.alice: must be a bcrypt hash ($2y$10$...), e.g. from htpasswd -nBC 10'],
    ],
    [`basic_auth_users:\n  "a:b": '${HASH}'\n`, ['basic_auth_users.a:b: user names cannot contain ":"']],
    ['rate_limit:\n  interval: 1s\n', ['rate_limit.burst: must be at least 1 when interval is set']],
    [
      'rate_limit:\n  interval: soon\n  burst: 1\n',
      ['rate_limit.interval: must be a duration such as 100ms or 1s, or 0 to turn it off'],
    ],
    ['rate_limit:\n  interval: 1s\n  burst: 1\n  per_ip: true\n', ['rate_limit.per_ip: unknown key']],
    [
      'http_server_config:\n  headers:\n    X-Powered-By: me\n',
      [
        'http_server_config.headers.X-Powered-By: cannot be configured; allowed: Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options, X-XSS-Protection, Content-Security-Policy',
      ],
    ],
    [
      'http_server_config:\n  headers:\n    X-Frame-Options: allow\n',
      ['http_server_config.headers.X-Frame-Options: must be one of deny, sameorigin'],
    ],
    ['tls_server_config:\n  cert_file: a.crt\n', ['tls_server_config.key_file: is required']],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS14\n',
      ['tls_server_config.min_version: must be one of TLS10, TLS11, TLS12, TLS13'],
    ],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS13\n  max_version: TLS12\n',
      ['tls_server_config.min_version: must not be above max_version'],
    ],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_auth_type: RequireAndVerifyClientCert\n',
      ['tls_server_config.client_ca_file: is required with client_auth_type RequireAndVerifyClientCert'],
    ],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_ca_file: ca.crt\n',
      [
        'tls_server_config.client_auth_type: client_ca_file is set but client certificates are not requested; use RequireAndVerifyClientCert',
      ],
    ],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n',
      [
        "tls_server_config.cipher_suites: is not supported by station-exporter; Node's default cipher suites are used",
      ],
    ],
    [
      'tls_server_config:\n  cert: "-----BEGIN"\n  cert_file: a.crt\n  key_file: a.key\n',
      ['tls_server_config.cert: is not supported by station-exporter; use cert_file'],
    ],
    [
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n',
      [
        'tls_server_config.cert_file: cannot read /etc/a.crt: no such file',
        'tls_server_config.key_file: cannot read /etc/a.key: no such file',
      ],
    ],
    ['- a\n', ['the top level must be a mapping of keys to values']],
    ['a: 1\na: 2\n', ['line 2, column 1: Map keys must be unique']],
  ])('rejects %j', async (yaml, expected) => {
    expect(await issues(yaml)).toEqual(expected);
  });

  it('refuses a YAML alias bomb with a web config error, not a crash', async () => {
    // 0.3.0 let yaml's ReferenceError escape: check-config exited 1 with a stack trace.
    expect(await issues(`basic_auth_users: {}\nbomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}\n`)).toEqual([
      'YAML aliases repeat too much: more than 100 alias uses (an alias bomb?)',
    ]);
  });

  it('never repeats a wrong password value in its error', async () => {
    expect((await issues('basic_auth_users:\n  alice: hunter2-plain\n')).join('\n')).not.toContain('hunter2');
  });

  it('names the file it cannot read', async () => {
    await expect(loadWebConfig('/nonexistent/web.yml')).rejects.toThrow(
      'invalid web config in /nonexistent/web.yml:\n  cannot read web config file: no such file',
    );
  });
});

/**
 * Real files, read the way the exporter reads them. On the old code (readFileSync) the FIFO
 * cases never returned: the main thread waited in open() for a writer.
 */
describe('web config files that are not regular files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'webcfg-files-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const rejection = async (file: string) => {
    try {
      await loadWebConfig(file);
    } catch (err) {
      if (err instanceof WebConfigError) return err.issues;
      throw err;
    }
    throw new Error('expected the file to be rejected');
  };

  it('refuses a FIFO, as --web.config.file <(cat web.yml) gives, without blocking', async () => {
    const fifo = path.join(dir, 'web.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await rejection(fifo)).toEqual([
      'cannot read web config file: is a FIFO (named pipe), not a regular file',
    ]);
  });

  it('refuses a directory and a device', async () => {
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    expect(await rejection(sub)).toEqual(['cannot read web config file: is a directory, not a regular file']);
    expect(await rejection('/dev/zero')).toEqual([
      'cannot read web config file: is a character device, not a regular file',
    ]);
  });

  it('refuses a file over 1 MiB', async () => {
    const big = path.join(dir, 'big.yml');
    writeFileSync(big, `# ${'x'.repeat(1024 * 1024)}\n{}\n`);
    expect(await rejection(big)).toEqual(['cannot read web config file: is larger than the limit of 1 MiB']);
  });

  it('refuses a certificate file that is a FIFO, naming the key', async () => {
    const fifo = path.join(dir, 'cert.fifo');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(path.join(dir, 'tls.key'), 'not read: the certificate already failed');
    const yml = path.join(dir, 'tls.yml');
    writeFileSync(yml, 'tls_server_config:\n  cert_file: cert.fifo\n  key_file: tls.key\n');
    expect(await rejection(yml)).toEqual([
      `tls_server_config.cert_file: cannot read ${fifo}: is a FIFO (named pipe), not a regular file`,
    ]);
  });

  it('reads a regular file, also through a symbolic link as Kubernetes mounts secrets', async () => {
    const yml = path.join(dir, 'ok.yml');
    writeFileSync(yml, `basic_auth_users:\n  prometheus: '${HASH}'\n`);
    symlinkSync(yml, path.join(dir, 'link.yml'));
    expect([...(await loadWebConfig(path.join(dir, 'link.yml'))).users.keys()]).toEqual(['prometheus']);
  });
});

describe.skipIf(!hasOpenssl() && !process.env.CI)('web config TLS material', () => {
  let pki: TestPki;
  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => pki?.close());
  const files = () => ({
    '/etc/server.crt': pki.pem('server.crt'),
    '/etc/server.key': pki.pem('server.key'),
    '/etc/server2.key': pki.pem('server2.key'),
    '/etc/ca.crt': pki.pem('ca.crt'),
  });

  it('reads certificate, key and client CA, relative to the file', async () => {
    const c = await load(
      'tls_server_config:\n  cert_file: server.crt\n  key_file: /etc/server.key\n  client_ca_file: ca.crt\n  client_auth_type: RequireAndVerifyClientCert\n  min_version: TLS13\n',
      files(),
    );
    expect(c.tls?.cert.equals(pki.pem('server.crt'))).toBe(true);
    expect(c.tls?.ca?.equals(pki.pem('ca.crt'))).toBe(true);
    expect(c.tls?.minVersion).toBe('TLSv1.3');
    expect(c.tls?.maxVersion).toBe('TLSv1.3');
    expect(c.tls?.clientAuth).toBe('RequireAndVerifyClientCert');
  });

  it('rejects a key that does not belong to the certificate, without quoting either', async () => {
    const found = await issues(
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server2.key\n',
      files(),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^tls_server_config: cert_file and key_file: .*key values mismatch/);
    expect(found[0]).not.toContain('PRIVATE KEY');
  });

  it('rejects a client CA file that holds no certificate', async () => {
    expect(
      await issues(
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n',
        files(),
      ),
    ).toEqual(['tls_server_config.client_ca_file: holds no PEM certificate']);
  });

  it('changes its fingerprint when a named file changes, not otherwise', async () => {
    const yaml = 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n';
    const a = await load(yaml, files());
    expect((await load(yaml, files())).fingerprint).toBe(a.fingerprint);
    const renewed = {
      ...files(),
      '/etc/server.crt': pki.pem('server2.crt'),
      '/etc/server.key': pki.pem('server2.key'),
    };
    expect((await load(yaml, renewed)).fingerprint).not.toBe(a.fingerprint);
  });
});
