/**
 * The TLS files of the upstream connection, on a real temporary file: when they are read,
 * what a bad file does, and the failures' words. The handshakes themselves are in
 * connection.e2e.test.ts (e2e, real servers).
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ConnectionSettings,
  DEFAULT_CONNECTION,
  tlsMaterialProblems,
  UpstreamConnection,
} from '../../src/upstream/connection.ts';
import { connectionHint } from '../../src/upstream/transport.ts';
import { RegularFileReader } from '../../src/util/read-file.ts';

const CA = readFileSync(
  fileURLToPath(new URL('../fixtures/config/secrets/upstream-ca.crt', import.meta.url)),
);

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A CA file in a temporary directory whose content and version (its mtime, in seconds) the test
 * sets; counts reads. `settings` point `ca_file` at it.
 */
function fakeDisk(content: Buffer | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'connection-files-'));
  dirs.push(dir);
  const path = join(dir, 'ca.crt');
  const reads = vi.spyOn(RegularFileReader.prototype, 'read');
  const disk = {
    path,
    set content(bytes: Buffer | undefined) {
      if (bytes === undefined) rmSync(path, { force: true });
      else writeFileSync(path, bytes);
    },
    set version(seconds: number) {
      utimesSync(path, seconds, seconds);
    },
    get reads() {
      return reads.mock.calls.length;
    },
  };
  disk.content = content;
  if (content !== undefined) disk.version = 1;
  const settings: ConnectionSettings = {
    ...DEFAULT_CONNECTION,
    tls: { ...DEFAULT_CONNECTION.tls, caFile: path },
  };
  return { disk, settings };
}

describe('UpstreamConnection', () => {
  it('without TLS files makes one dispatcher', async () => {
    const conn = new UpstreamConnection(DEFAULT_CONNECTION);
    expect(await conn.dispatcher()).toBe(await conn.dispatcher());
    await conn.close();
  });

  it('reads the files once while they are unchanged, and again when one changes', async () => {
    const { disk, settings } = fakeDisk(CA);
    const conn = new UpstreamConnection(settings);
    const first = await conn.dispatcher();
    expect(await conn.dispatcher()).toBe(first);
    expect(disk.reads).toBe(1);
    disk.version = 2;
    const second = await conn.dispatcher();
    expect(second).not.toBe(first);
    expect(disk.reads).toBe(2);
    await conn.close();
  });

  it('shares one check among requests that arrive together', async () => {
    const { disk, settings } = fakeDisk(CA);
    const conn = new UpstreamConnection(settings);
    const [a, b, c] = await Promise.all([conn.dispatcher(), conn.dispatcher(), conn.dispatcher()]);
    expect(new Set([a, b, c]).size).toBe(1);
    expect(disk.reads).toBe(1);
    await conn.close();
  });

  it('fails a request, naming the key and path, when no file was ever readable', async () => {
    const { disk, settings } = fakeDisk(undefined);
    const conn = new UpstreamConnection(settings);
    await expect(conn.dispatcher()).rejects.toThrow(
      `upstream.tls_config.ca_file: cannot read ${disk.path}: ENOENT`,
    );
  });

  it('keeps the last good dispatcher while a file is bad, reads a bad version once, and recovers', async () => {
    const { disk, settings } = fakeDisk(CA);
    const reports: Array<string | undefined> = [];
    const conn = new UpstreamConnection(settings, { onFileError: (r) => reports.push(r) });
    const good = await conn.dispatcher();

    disk.content = Buffer.from('-----BEGIN PRIVATE KEY-----\nsecret\n');
    disk.version = 2;
    expect(await conn.dispatcher()).toBe(good);
    expect(await conn.dispatcher()).toBe(good);
    expect(disk.reads).toBe(2);
    expect(reports.at(-1)).toBe(`upstream.tls_config.ca_file ${disk.path}: holds no PEM certificate`);

    disk.content = undefined;
    expect(await conn.dispatcher()).toBe(good);
    expect(reports.at(-1)).toBe(`upstream.tls_config.ca_file: cannot read ${disk.path}: ENOENT`);

    disk.content = CA;
    disk.version = 3;
    const renewed = await conn.dispatcher();
    expect(renewed).not.toBe(good);
    expect(reports.at(-1)).toBeUndefined();
    expect(reports).toEqual([
      `upstream.tls_config.ca_file ${disk.path}: holds no PEM certificate`,
      `upstream.tls_config.ca_file: cannot read ${disk.path}: ENOENT`,
      undefined,
    ]);
    // Never a word of what the file held.
    expect(reports.join(' ')).not.toContain('secret');
    await conn.close();
  });
});

describe('tlsMaterialProblems', () => {
  it('accepts a PEM CA, refuses a file without one and a certificate without its key', () => {
    expect(tlsMaterialProblems({ ca: CA, cert: undefined, key: undefined })).toEqual([]);
    expect(tlsMaterialProblems({ ca: Buffer.from('hello'), cert: undefined, key: undefined })).toEqual([
      { field: 'ca_file', problem: 'holds no PEM certificate' },
    ]);
    const [problem] = tlsMaterialProblems({ ca: undefined, cert: CA, key: Buffer.from('not a key') });
    expect(problem?.field).toBe('cert_file');
    expect(problem?.problem).toMatch(/^is not a certificate matching key_file \(.+\)$/);
  });
});

describe('connectionHint', () => {
  const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('says what to set for the certificate failures', () => {
    expect(connectionHint(coded('certificate has expired', 'CERT_HAS_EXPIRED'))).toBe(
      "the upstream's certificate is past its end date: the server needs a renewed one",
    );
    expect(
      connectionHint(coded('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')),
    ).toMatch(/set upstream\.tls_config\.ca_file/);
  });

  it('finds the code on a cause, and names a proxy refusing the tunnel', () => {
    const wrapped = new Error('Secure Proxy Connection failed', {
      cause: coded('Hostname/IP does not match', 'ERR_TLS_CERT_ALTNAME_INVALID'),
    });
    expect(connectionHint(wrapped)).toMatch(/server_name$/);
    expect(connectionHint(new Error('Proxy response (403) !== 200 when HTTP Tunneling'))).toMatch(
      /^the proxy refused the tunnel/,
    );
    expect(connectionHint(coded('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).toBeUndefined();
  });
});
