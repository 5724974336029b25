/**
 * The command line as a user runs it: a real process through bin/station-exporter.js, which runs
 * the compiled dist/ (test/global-setup.ts rebuilds it when stale), so a spawn costs ~0.1 s, not ~0.7 s.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../src/simulator/index.ts';
import { ALIAS_BOMB_LINES } from './helpers/yaml.ts';

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
    expect(h.stdout).toContain('check-config [[--config.file] FILE] [--web.config.file FILE]');
    const bad = await run(['--nope']);
    expect(bad.code).toBe(2);
    // The flag is checked like server.listen_address in the config file.
    const port = await run(['--web.listen-address', ':99999']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--web.listen-address must be host:port or :port, got ":99999"');
  });

  it('check-config FILE and check-config --config FILE: exit 2 with every error, 0 with a summary that hides the token', async () => {
    const badFile = 'test/fixtures/config/bad-timezone.bad.yaml';
    const file = configFile('ok.yaml', `upstream:\n  base_url: ${sim.url}\n  token: \${SECRET_TOKEN}\n`);
    const env = { SECRET_TOKEN: 'super-secret-value' };
    const [bad, badFlag, ok, okFlag] = await Promise.all([
      run(['check-config', badFile]),
      run(['check-config', '--config', badFile]),
      run(['check-config', file], env),
      run(['check-config', '--config', file], env),
    ]);
    for (const r of [bad, badFlag]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown time zone "Europe/Berln"');
    }
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${file}: OK`);
    expect(ok.stdout).not.toContain('super-secret-value');
    // Without plant counts there is no plan to print: it says how to get one.
    expect(ok.stdout).toContain('request plan and series estimate: give the plant counts (--stations N');
    expect(ok.stdout).not.toContain('Total:');
    expect(okFlag.code).toBe(0);
    expect(okFlag.stdout).toBe(ok.stdout);
  });

  it('check-config refuses no file, two files, or a flag without its file', async () => {
    const wrong = [[], ['a.yaml', '--config', 'b.yaml'], ['--config']];
    const refused = await Promise.all(wrong.map((args) => run(['check-config', ...args])));
    for (const r of refused) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('check-config takes one FILE (or --config.file FILE)');
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
    // Each error once: the log's warning, no second plain copy of it.
    expect(r.stderr.match(/ECONNREFUSED/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/^time=\S+ level=warn msg="poll failed; no data yet/m);
    // Below warnings the log shows nothing, so the summary says what failed.
    const quiet = await run(['once', '--config', file, '--log.level', 'error']);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr.match(/ECONNREFUSED/g)).toHaveLength(1);
    expect(quiet.stderr).toContain('station-exporter: topology: sites: request failed: connect ECONNREFUSED');
  });

  it('check-config validates a web config file alone or with a config, naming the path of each error', async () => {
    const bad = configFile('web-bad.yml', 'basic_auth_users:\n  alice: plain-password\nratelimit: {}\n');
    const r = await run(['check-config', '--web.config.file', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid web config in ${bad}:`);
    expect(r.stderr).toContain('basic_auth_users.alice: must be a bcrypt hash');
    expect(r.stderr).toContain('ratelimit: unknown key');
    expect(r.stderr).not.toContain('plain-password');
    const good = configFile('web-good.yml', 'rate_limit:\n  interval: 1s\n  burst: 5\n');
    const cfg = configFile('ok2.yaml', `upstream:\n  base_url: ${sim.url}\n  token: t\n`);
    const ok = await run(['check-config', cfg, '--web.config.file', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      `${good}: OK\n  plain HTTP, 0 basic auth user(s), rate limit 5 then 1 per 1000 ms`,
    );
    expect((await run(['check-config'])).code).toBe(2);
    // A YAML alias bomb used to escape as a ReferenceError: exit 1 and a stack trace.
    const bomb = configFile('web-bomb.yml', `bomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}\n`);
    const boom = await run(['check-config', '--web.config.file', bomb]);
    expect([boom.code, boom.stderr]).toEqual([
      2,
      expect.stringContaining('YAML aliases repeat too much: more than 100 alias uses (an alias bomb?)'),
    ]);
    expect(boom.stderr).not.toMatch(/ReferenceError|\n\s+at /);
  });

  it('refuses to start with an empty web config or one that is a pipe', { timeout: 60_000 }, async () => {
    const cfg = configFile('ok-web.yaml', `upstream:\n  base_url: ${sim.url}\n  token: t\n`);
    // Either would have served /metrics without auth on 0.3.0 (--web.config.file <(cat web.yml) is a pipe).
    const empty = configFile('web-empty.yml', '# all commented out\n');
    const e = await run(['--config', cfg, '--web.config.file', empty, '--web.listen-address', '127.0.0.1:0']);
    expect([e.code, e.stderr]).toEqual([2, expect.stringContaining('the file is empty (or only comments)')]);
    const fifo = path.join(dir, 'web.fifo');
    execFileSync('mkfifo', [fifo]);
    const f = await run(['--config', cfg, '--web.config.file', fifo, '--web.listen-address', '127.0.0.1:0']);
    expect([f.code, f.stderr]).toEqual([
      2,
      expect.stringContaining('is a FIFO (named pipe), not a regular file'),
    ]);
  });

  it('refuses to start with a bad web config or bad limit flags', async () => {
    const bad = configFile(
      'web-bad2.yml',
      'tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n',
    );
    const r = await run(['--web.config.file', bad, '--web.listen-address', '127.0.0.1:0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `tls_server_config.cert_file: cannot read ${path.join(dir, 'missing.crt')}: no such file`,
    );
    const flags = await run(['--web.idle-timeout', 'forever']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toContain('--web.idle-timeout must be a duration such as 10s or 2m, got "forever"');
    expect((await run(['--web.read-header-timeout', '1ms'])).stderr).toContain(
      '--web.read-header-timeout must be at least 1s, got 1ms',
    );
    expect((await run(['--web.max-connections', '0'])).stderr).toContain(
      '--web.max-connections must be a whole number of at least 1',
    );
  });

  it('check-config, once and serve refuse an alias bomb, an oversized config and a 1ms interval: exit 2, a message, no stack', async () => {
    const base = `upstream:\n  base_url: ${sim.url}\n  token: demo-token\n`;
    const bomb = configFile('bomb.yaml', `${base}bomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}\n`);
    const huge = configFile('huge.yaml', `${base}# ${'x'.repeat(1024 * 1024)}\n`);
    const fast = configFile('fast.yaml', `${base}summary:\n  interval: 1ms\n`);
    const cases = [
      [bomb, 'YAML aliases repeat too much: more than 100 alias uses (an alias bomb?)'],
      [huge, 'cannot read config file: is larger than the limit of 1 MiB'],
      [fast, 'summary.interval: must be at least 1s, got 1ms'],
    ] as const;
    // check-config for each; once and serve too for the bomb, which used to crash all three.
    const runs = cases.flatMap(([file, message]) =>
      [
        ['check-config', file],
        ...(file === bomb
          ? [
              ['once', '--config', file],
              ['--config', file, '--web.listen-address', '127.0.0.1:0'],
            ]
          : []),
      ].map(async (args) => ({ args, message, result: await run(args) })),
    );
    for (const { args, message, result } of await Promise.all(runs)) {
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stderr).not.toMatch(/ReferenceError|\n\s+at /);
    }
  }, 60_000);

  it('serve shuts down on SIGTERM, logs it and exits 0', async () => {
    const file = configFile(
      'serve.yaml',
      `upstream:\n  base_url: ${sim.url}\n  token: demo-token\nwindows: [1h]\n`,
    );
    const child = spawn(process.execPath, [BIN, '--config', file, '--web.listen-address', '127.0.0.1:0']);
    let stderr = '';
    const listening = new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('metrics at ')) resolve();
      }),
    );
    // The signal's name when the process died of one, so that a failure says which.
    const exited = new Promise<number | string | null>((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? signal)),
    );
    await listening;
    child.kill('SIGTERM');
    expect(await exited, stderr.slice(-3000)).toBe(0);
    // logfmt, the default log format.
    expect(stderr).toMatch(/level=info msg="shutting down" app=station-exporter deadline_seconds=10\n/);
    expect(stderr).toMatch(/level=info msg="shut down"/);
  });

  it('checks basic auth passwords from dist/, in the bcrypt thread the bundle ships', async () => {
    const file = configFile('auth.yaml', `upstream:\n  base_url: ${sim.url}\n  token: demo-token\n`);
    // bcryptjs's hash of "right" at cost 4.
    const web = configFile(
      'auth-web.yml',
      "basic_auth_users:\n  prometheus: '$2b$04$4tL33SGBlVR15LPgkPQvleVdSHO.BzxUyLbuVH46s83PZh.zZKykq'\n",
    );
    const child = spawn(process.execPath, [
      BIN,
      '--config',
      file,
      '--web.config.file',
      web,
      '--web.listen-address',
      '127.0.0.1:0',
    ]);
    let stderr = '';
    const port = await new Promise<string>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /metrics at http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
        if (m?.[1]) resolve(m[1]);
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const status = async (password: string) =>
      (
        await fetch(`http://127.0.0.1:${port}/-/healthy`, {
          headers: { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` },
        })
      ).status;
    try {
      expect([await status('right'), await status('wrong')]).toEqual([200, 401]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr.slice(-3000)).toBe(0);
    expect(stderr).not.toMatch(/bcrypt comparison failed|Error/);
  });

  it("prints each subcommand's own usage with --help and -h (exit 0), and with an unknown flag (exit 2)", {
    timeout: 60_000,
  }, async () => {
    for (const command of ['check-config', 'once', 'simulate', 'record', 'limits']) {
      const usage = `Usage: station-exporter ${command}`;
      for (const flag of ['--help', '-h']) {
        const r = await run([command, flag]);
        expect(r.code, `${command} ${flag}`).toBe(0);
        expect(r.stdout.startsWith(usage), `${command} ${flag}: ${r.stdout}`).toBe(true);
        expect(r.stderr).toBe('');
      }
      const bad = await run([command, '--bogus']);
      expect(bad.code, `${command} --bogus`).toBe(2);
      expect(bad.stderr).toContain("Unknown option '--bogus'");
      expect(bad.stderr).toContain(usage);
      expect(bad.stdout).toBe('');
    }
  });

  it('names the subcommands and suggests the nearest for an unknown one; help [COMMAND] prints usage', async () => {
    for (const [typed, guess] of [
      ['chek-config', 'check-config'],
      ['onse', 'once'],
      ['simulat', 'simulate'],
    ] as const) {
      const r = await run([typed]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown command "${typed}" (did you mean "${guess}"?)`);
      expect(r.stderr).toContain('Commands: check-config, once, simulate, record, limits, help');
    }
    const far = await run(['frobnicate']);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain('did you mean');
    const help = await run(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('station-exporter check-config');
    const one = await run(['help', 'record']);
    expect(one.code).toBe(0);
    expect(one.stdout.startsWith('Usage: station-exporter record')).toBe(true);
    expect((await run(['help', 'nope'])).code).toBe(2);
  });
});
