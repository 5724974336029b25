/**
 * A throw-away PKI made with the real `openssl` at test time: a CA, server certificates for
 * 127.0.0.1 and a client certificate, all signed by the CA, plus one from a second, untrusted CA.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Whether openssl is on the PATH. */
export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version']).status === 0;
}

/** PEM files in one directory. */
export interface TestPki {
  readonly dir: string;
  /** Absolute path of a file in the directory. */
  file(name: string): string;
  pem(name: string): Buffer;
  close(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A new unencrypted P-256 key for `openssl req`. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function ca(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
}

function leaf(dir: string, name: string, signer: string, ext: string): void {
  openssl(dir, ['req', ...NEW_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${signer}.crt`,
    '-CAkey',
    `${signer}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
    '-extensions',
    ext,
  ]);
}

/**
 * Creates `ca.crt`; `server.crt`/`server.key` and `server2.crt`/`server2.key` (both for
 * IP 127.0.0.1, signed by ca); `client.crt`/`client.key` (signed by ca); `rogue.crt`/`rogue.key`
 * (a client certificate signed by another CA).
 */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'pki-'));
  execFileSync(
    'sh',
    [
      '-c',
      `printf '%s\\n' '[server]' 'subjectAltName=IP:127.0.0.1' 'extendedKeyUsage=serverAuth' '[client]' 'extendedKeyUsage=clientAuth' > ext.cnf`,
    ],
    { cwd: dir },
  );
  ca(dir, 'ca');
  ca(dir, 'otherca');
  leaf(dir, 'server', 'ca', 'server');
  leaf(dir, 'server2', 'ca', 'server');
  leaf(dir, 'client', 'ca', 'client');
  leaf(dir, 'rogue', 'otherca', 'client');
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    file,
    pem: (name) => readFileSync(file(name)),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
