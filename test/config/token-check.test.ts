import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCheckConfig } from '../../src/app/commands/check-config.ts';

/** Runs check-config on a config whose token file has `mode`; returns exit code and output. */
async function check(mode: number, token = 'tok-123\n') {
  const dir = mkdtempSync(path.join(tmpdir(), 'token-check-'));
  writeFileSync(path.join(dir, 'token'), token);
  chmodSync(path.join(dir, 'token'), mode);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, 'upstream:\n  base_url: http://127.0.0.1:9\n  token_file: token\n');
  const out: string[] = [];
  const capture = (s: string | Uint8Array) => {
    out.push(String(s));
    return true;
  };
  const so = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const se = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    return { code: await runCheckConfig(file), out: out.join('') };
  } finally {
    so.mockRestore();
    se.mockRestore();
  }
}

describe('check-config and the token file', () => {
  it('warns about a group- or world-readable token file, not about a private one', async () => {
    const open = await check(0o644);
    expect(open.code).toBe(0);
    expect(open.out).toContain('is readable by group or others (mode 644)');
    const private_ = await check(0o600);
    expect(private_.code).toBe(0);
    expect(private_.out).not.toContain('readable by group');
  });

  it('strips a trailing newline but rejects one inside the token, without printing it', async () => {
    const bad = await check(0o600, 'tok-123\ntok-456\n');
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('the token contains whitespace at position 8');
    expect(bad.out).not.toContain('tok-123');
  });
});
