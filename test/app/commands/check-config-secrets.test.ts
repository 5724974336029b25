/**
 * No secret in any config error (issue 31, item 5). The token lives only in `token_file`, so the
 * process's redactor may never have read it; pasted into any field of the schema, check-config
 * must not print it, whatever it prints (errors or the summary of a valid config).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { runCheckConfig } from '../../../src/app/commands/check-config.ts';
import { configReferenceRows } from '../../../src/config/reference.ts';
import { maskCredentialLike } from '../../../src/util/redact.ts';

/** Tokens as real services issue them: a JWT, a random base64url key, a random hex key. */
const TOKENS = [
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudC1yZWFkZXIifQ.s3cr3tPAYLOADs3cr3tSIG0xKq9',
  'q7Rk2ZpX9vLmN4wB8sTcY1uHjE6aG3dF0oIx5yPe',
  '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b',
];

let dir: string;
let tokenFile: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'check-secrets-'));
  tokenFile = path.join(dir, 'token');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Sets `value` at a reference path such as `windows[].name` or `discovery.site_ids`. */
function setAt(target: Record<string, unknown>, refPath: string, value: unknown): void {
  const segments = refPath.split('.');
  let node: Record<string, unknown> = target;
  for (const [i, raw] of segments.entries()) {
    const isList = raw.endsWith('[]');
    const key = isList ? raw.slice(0, -2) : raw;
    const last = i === segments.length - 1;
    if (last) {
      node[key] = isList ? [value] : value;
      return;
    }
    if (isList) {
      const item: Record<string, unknown> = {};
      node[key] = [item];
      node = item;
    } else {
      const next = (node[key] ?? {}) as Record<string, unknown>;
      node[key] = next;
      node = next;
    }
  }
}

let configs = 0;

/** What check-config writes to stdout and stderr for `doc`. */
async function checkConfigOutput(doc: Record<string, unknown>): Promise<string> {
  // A new file each time: rewriting one file in place (truncate, write) makes ext4 flush it to
  // disk on close, about 6 ms each of the 660 calls; creating a file does not.
  const file = path.join(dir, `config-${++configs}.yaml`);
  writeFileSync(file, stringify(doc));
  let output = '';
  const capture = (chunk: string | Uint8Array) => {
    output += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await runCheckConfig(file);
  } finally {
    vi.restoreAllMocks();
  }
  return output;
}

/** The token, and every 10-character piece of it, so that a partly printed token is found too. */
function pieces(token: string): string[] {
  const out = [token];
  for (let i = 0; i + 10 <= token.length; i += 5) out.push(token.slice(i, i + 10));
  return out;
}

describe('check-config with the token pasted into every field', () => {
  const rows = configReferenceRows().filter((r) => r.path !== 'upstream.token');

  it('covers the schema', () => {
    expect(rows.length).toBeGreaterThan(100);
  });

  for (const token of TOKENS) {
    it(`prints no part of a ${token.length}-character token, in any field`, async () => {
      writeFileSync(tokenFile, `${token}\n`);
      chmodSync(tokenFile, 0o600);
      const leaks: string[] = [];
      let masked = 0;
      // The token file readable (the process learns the token), and not readable here (check-config
      // run on another machine than the exporter's: the process never sees the token).
      for (const file of [tokenFile, path.join(dir, 'absent', 'token')])
        for (const row of rows) {
          const doc: Record<string, unknown> = {
            upstream: { base_url: 'http://127.0.0.1:9', token_file: file },
          };
          // The token pasted as a path is the case where no file holds it.
          setAt(doc, row.path, row.path === 'upstream.token_file' ? path.join(dir, token) : token);
          const output = await checkConfigOutput(doc);
          const found = pieces(token).find((p) => output.includes(p));
          if (found !== undefined) leaks.push(`${row.path}: ${output.slice(0, 300)}`);
          if (output.includes(`[masked: ${token.length} characters]`)) masked++;
        }
      expect(leaks).toEqual([]);
      // The masked form with its length is what shows where the value would have been quoted.
      expect(masked).toBeGreaterThan(0);
    }, 120_000);
  }
});

describe('maskCredentialLike', () => {
  it('masks JWTs, Bearer credentials and long random keys with their length', () => {
    expect(maskCredentialLike(`upstream.token_file: cannot read /etc/x/${TOKENS[0]}: ENOENT`)).toBe(
      `upstream.token_file: cannot read /etc/x/[masked: ${TOKENS[0]?.length} characters]: ENOENT`,
    );
    expect(maskCredentialLike(`got "${TOKENS[1]}"`)).toBe('got "[masked: 40 characters]"');
    expect(maskCredentialLike(`got "${TOKENS[2]}"`)).toBe('got "[masked: 40 characters]"');
    expect(maskCredentialLike('Authorization: Bearer abc123def')).toBe(
      'Authorization: Bearer [masked: 9 characters]',
    );
  });

  it('leaves what a user needs to read: paths, names, ids, times, URLs', () => {
    for (const text of [
      'windows[2].timezone: unknown time zone "Europe/Berln"',
      'discovery.site_ids[0]: must be a 24-character hexadecimal id, got "65f0c0ffee0123456789abcd0"',
      '65f0c0ffee0123456789abcd',
      'station_exporter_units_total station_measurement_control_cusum_upper',
      'cannot read /etc/station-exporter/token: ENOENT',
      'http://station-data.plant.example.com:8080/api/v1',
      'measurements.control.names[0].baseline.from: got "2026-03-01T00:00:00Z"',
      'Bearer token has expired',
    ])
      expect(maskCredentialLike(text)).toBe(text);
  });
});
