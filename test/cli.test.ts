/**
 * The command line as a user runs it: a real process through bin/station-exporter.js, which runs
 * the compiled dist/ (test/global-setup.ts rebuilds it when stale), so a spawn costs ~0.1 s, not ~0.7 s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../src/simulator/index.ts';

const BIN = path.resolve('bin/station-exporter.js');

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let sim: RunningSimulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulatorServer({ seed: 3, scale: { sites: 1, linesPerSite: 1, stationsPerLine: 3 } });
  dir = mkdtempSync(path.join(tmpdir(), 'cli-'));
});
afterAll(() => sim.close());

function configFile(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, body);
  return file;
}

describe('station-exporter command line', () => {
  it('prints its version and usage', async () => {
    const v = await run(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^station-exporter \d+\.\d+\.\d+\n$/);
    const h = await run(['--help']);
    expect(h.stdout).toContain('check-config [--config] FILE');
    const bad = await run(['--nope']);
    expect(bad.code).toBe(2);
    // The flag is checked like server.listen_address in the config file.
    const port = await run(['--web.listen-address', ':99999']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--web.listen-address must be host:port or :port, got ":99999"');
  });

  it('check-config exits 2 with every error, 0 with a summary that hides the token', async () => {
    const bad = await run(['check-config', 'test/fixtures/config/bad-timezone.bad.yaml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown time zone "Europe/Berln"');
    const file = configFile('ok.yaml', `upstream:\n  base_url: ${sim.url}\n  token: \${SECRET_TOKEN}\n`);
    const ok = await run(['check-config', file], { SECRET_TOKEN: 'super-secret-value' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${file}: OK`);
    expect(ok.stdout).not.toContain('super-secret-value');
  });

  it('check-config takes the file as FILE or as --config FILE, and exactly one of them', async () => {
    const file = configFile('forms.yaml', `upstream:\n  base_url: ${sim.url}\n  token: t\n`);
    const forms = [[file], ['--config', file], ['-c', file], [`--config=${file}`]];
    const ok = await Promise.all(forms.map((args) => run(['check-config', ...args])));
    for (const r of ok) expect(r.code).toBe(0);
    expect(ok[0]!.stdout).toContain(`${file}: OK`);
    for (const r of ok) expect(r.stdout).toBe(ok[0]!.stdout);
    const bad = await run(['check-config', '--config', 'test/fixtures/config/bad-timezone.bad.yaml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown time zone "Europe/Berln"');
    const wrong = [[], [file, file], [file, '--config', file], ['--nope', file], ['--config']];
    const refused = await Promise.all(wrong.map((args) => run(['check-config', ...args])));
    for (const r of refused) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('check-config takes one FILE, or --config FILE');
    }
  });

  it('once prints the exposition for every station and exits 0', async () => {
    const file = configFile(
      'once.yaml',
      `upstream:\n  base_url: ${sim.url}\n  token: demo-token\nwindows: [1h]\n`,
    );
    const r = await run(['once', '--config', file]);
    expect(r.stderr).not.toContain('demo-token');
    expect(r.code).toBe(0);
    for (const s of sim.sim.plant.stations) expect(r.stdout).toContain(`station_id="${s.id}"`);
  });

  it('once exits 1 when the upstream cannot be reached, without leaking the token', async () => {
    const file = configFile(
      'down.yaml',
      'upstream:\n  base_url: http://127.0.0.1:9\n  token: leaky-token\n  timeout: 2s\nwindows: [1h]\n',
    );
    const r = await run(['once', '--config', file]);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).not.toContain('leaky-token');
  });
});
