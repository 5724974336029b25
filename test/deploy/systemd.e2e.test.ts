/**
 * deploy/systemd/station-exporter.service: the hardening settings, and a token path that the
 * exporter's config really reads: LoadCredential's name, under $CREDENTIALS_DIRECTORY, is the
 * token_file of deploy/systemd/config.yaml. systemd-analyze checks the unit itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.ts';

const UNIT = 'deploy/systemd/station-exporter.service';
const CONFIG = 'deploy/systemd/config.yaml';

/** Settings of one section; a key may repeat (as SystemCallFilter does). */
function section(text: string, name: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (current !== name) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1)]);
  }
  return out;
}

const text = readFileSync(UNIT, 'utf8');
const service = section(text, 'Service');
const one = (key: string) => service.get(key)?.at(-1);
const tmp = mkdtempSync(path.join(tmpdir(), 'systemd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function analyzePath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** A copy whose ExecStart names an executable that exists here, so that verify checks the rest. */
function unitForAnalysis(): string {
  const file = path.join(tmp, 'station-exporter.service');
  writeFileSync(file, text.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath} /dev/null`));
  return file;
}

describe('systemd unit', () => {
  it('runs as a dynamic user on a read-only system without privileges', () => {
    expect(one('DynamicUser')).toBe('yes');
    expect(service.has('User')).toBe(false);
    expect(one('ProtectSystem')).toBe('strict');
    for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID'])
      expect(one(key), key).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('RestrictAddressFamilies')?.split(' ').sort()).toEqual(['AF_INET', 'AF_INET6', 'AF_UNIX']);
    // Node's JIT needs writable, executable memory: this setting would crash the exporter.
    expect(service.has('MemoryDenyWriteExecute')).toBe(false);
  });

  it('reloads with SIGHUP, the signal the command line reloads on', () => {
    expect(one('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(readFileSync('src/cli.ts', 'utf8') + readFileSync('src/app/commands/signals.ts', 'utf8')).toMatch(
      /'SIGHUP'/,
    );
  });

  it('hands the token over as a credential that the config reads as token_file', async () => {
    const [credential = '', source = ''] = (one('LoadCredential') ?? '').split(':');
    expect(credential).toMatch(/^[\w-]+$/);
    expect(source).toMatch(/^\/etc\/station-exporter\//);
    expect(one('ExecStart')).toMatch(/ --config\.file \/etc\/station-exporter\/config\.yaml$/);
    // systemd sets CREDENTIALS_DIRECTORY and puts the credential there under its name.
    writeFileSync(path.join(tmp, credential), 'token-from-credential\n');
    const config = await loadConfig(CONFIG, { CREDENTIALS_DIRECTORY: tmp });
    expect(config.upstream.token).toEqual({ kind: 'file', path: path.join(tmp, credential) });
    // Under another credential name the file would be missing, and the config says so.
    const elsewhere = mkdtempSync(path.join(tmp, 'other-'));
    await expect(loadConfig(CONFIG, { CREDENTIALS_DIRECTORY: elsewhere })).rejects.toThrow(ConfigError);
  });

  it.skipIf(!analyzePath() && !process.env.CI)(
    'passes systemd-analyze verify and rates as well hardened',
    () => {
      const bin = analyzePath();
      if (!bin) throw new Error('systemd-analyze not found (Debian systemd)');
      const file = unitForAnalysis();
      const verify = spawnSync(bin, ['verify', file], { encoding: 'utf8' });
      expect(`${verify.stdout}${verify.stderr}`).toBe('');
      expect(verify.status).toBe(0);
      const security = spawnSync(bin, ['security', '--offline=yes', '--no-pager', file], {
        encoding: 'utf8',
      });
      const level = /Overall exposure level for [^:]+: ([\d.]+)/.exec(security.stdout)?.[1];
      expect(level, security.stdout.slice(-500)).toBeDefined();
      // systemd rates 0-10, lower is safer; this unit rates 1.5 ("OK") with systemd 252.
      expect(Number(level)).toBeLessThan(2);
    },
  );
});
