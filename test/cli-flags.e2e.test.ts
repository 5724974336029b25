/**
 * The exporter-toolkit flags as a user runs them, through bin/station-exporter.js: --config.file,
 * repeated --web.listen-address, --web.telemetry-path, --web.disable-exporter-metrics,
 * --log.format, --web.systemd-socket under systemd's own socket activation tool, and the
 * binary's check of the running Node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../src/simulator/index.ts';
import { freePort } from './helpers/prometheus.ts';

const BIN = path.resolve('bin/station-exporter.js');
/** The host's own Node: 20 on this project's machines, older than the exporter supports. */
const SYSTEM_NODE = '/usr/bin/node';
const SOCKET_ACTIVATE = '/usr/bin/systemd-socket-activate';

let sim: RunningSimulator;
let config: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  sim = await startSimulatorServer({ seed: 5, scale: { sites: 1, linesPerSite: 1, stationsPerLine: 2 } });
  const dir = mkdtempSync(path.join(tmpdir(), 'cli-flags-'));
  config = path.join(dir, 'config.yaml');
  writeFileSync(config, `upstream:\n  base_url: ${sim.url}\n  token: demo-token\nwindows: [1h]\n`);
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await sim.close();
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The first line of `output()` that `match` accepts, once it is out (the process writes in chunks). */
async function lineOf(output: () => string, match: (line: string) => boolean): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const line = output()
      .split('\n')
      .find((l) => match(l));
    if (line !== undefined) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no such line in: ${output()}`);
}

/** Starts a server process; resolves with its stderr so far once `count` "metrics at" lines are out. */
function serve(command: string, args: string[], count = 1) {
  const child = spawn(command, args);
  children.push(child);
  let stderr = '';
  const ready = new Promise<string>((resolve, reject) => {
    // A test that ends before the line arrives does not need it.
    child.stderr.on('data', (d) => {
      stderr += d;
      if ((stderr.match(/metrics at /g) ?? []).length >= count) resolve(stderr);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  ready.catch(() => {});
  const stop = () =>
    new Promise<number | string | null>((resolve) => {
      child.on('exit', (code, signal) => resolve(code ?? signal));
      child.kill('SIGTERM');
    });
  return { child, ready, stop, stderr: () => stderr };
}

describe('exporter-toolkit flags', () => {
  it('exits 1 with one line naming the Node it needs on the host Node 20', async () => {
    // CI runs on machines whose system Node is 20 (the project's own runs on the pinned 24).
    if (!existsSync(SYSTEM_NODE))
      throw new Error(`${SYSTEM_NODE} is missing: this test needs the host's Node`);
    const version = (await run(SYSTEM_NODE, ['--version'])).stdout.trim();
    expect(version, 'the host Node must be one the exporter refuses').toMatch(
      /^v(1\d|20|21|22\.(1[0-8]|\d)|23)\./,
    );
    const r = await run(SYSTEM_NODE, [BIN, '--config.file', config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `station-exporter: needs Node.js 22.19 or later 22.x, 24.x, or 26 or later; this is Node.js ${version}\n`,
    );
  });

  it('serves the telemetry path on every listen address, without the process metrics when asked', async () => {
    const run1 = serve(process.execPath, [
      BIN,
      '--config.file',
      config,
      '--web.listen-address',
      '127.0.0.1:0',
      '--web.listen-address',
      '127.0.0.1:0',
      '--web.telemetry-path',
      '/exporter/metrics',
      '--web.disable-exporter-metrics',
    ]);
    const stderr = await run1.ready.then(
      () => new Promise<string>((r) => setTimeout(() => r(run1.stderr()), 200)),
    );
    const urls = [...stderr.matchAll(/metrics at (http:\/\/\S+)\/exporter\/metrics/g)].map((m) => m[1]);
    expect(urls).toHaveLength(2);
    expect(new Set(urls).size).toBe(2);
    for (const url of urls) {
      let body = '';
      // The first poll may still run: the self-metrics are there from the start.
      const res = await fetch(`${url}/exporter/metrics`);
      expect(res.status).toBe(200);
      body = await res.text();
      expect(body).toContain('station_exporter_build_info');
      expect(body).not.toMatch(/^process_|^nodejs_/m);
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const landing = await (await fetch(`${url}/`)).text();
      expect(landing).toContain('href="exporter/metrics"');
    }
    expect(await run1.stop()).toBe(0);
    // The default keeps them.
    const run2 = serve(process.execPath, [BIN, '--config', config, '--web.listen-address', '127.0.0.1:0']);
    const url2 = (await run2.ready).match(/metrics at (http:\/\/\S+)\/metrics/)?.[1];
    expect(await (await fetch(`${url2}/metrics`)).text()).toMatch(/^process_cpu_seconds_total /m);
    expect(await run2.stop()).toBe(0);
  });

  it('logs logfmt by default and JSON lines with --log.format json', async () => {
    const logfmt = serve(process.execPath, [
      BIN,
      '--config.file',
      config,
      '--web.listen-address',
      '127.0.0.1:0',
    ]);
    await logfmt.ready;
    const text = await lineOf(logfmt.stderr, (l) => l.includes('msg=listening'));
    expect(text).toMatch(
      /^time=\d{4}-\d\d-\d\dT\S+Z level=info msg=listening app=station-exporter listen=http:\/\/127\.0\.0\.1:\d+ tls=false lifecycle=false$/m,
    );
    expect(await logfmt.stop()).toBe(0);
    const json = serve(process.execPath, [
      BIN,
      '--config.file',
      config,
      '--web.listen-address',
      '127.0.0.1:0',
      '--log.format',
      'json',
    ]);
    await json.ready;
    // The log line and the "metrics at" line may come in separate chunks: wait for the former.
    const line = await lineOf(json.stderr, (l) => l.startsWith('{') && l.includes('"listening"'));
    expect(JSON.parse(line)).toMatchObject({
      level: 30,
      msg: 'listening',
      app: 'station-exporter',
    });
    expect(await json.stop()).toBe(0);
  });

  it('refuses bad combinations and values of the new flags with exit 2', { timeout: 90_000 }, async () => {
    const cases: Array<[string[], string]> = [
      [['--log.format', 'xml'], '--log.format must be one of logfmt, json, got "xml"'],
      [['--web.telemetry-path', 'metrics'], '--web.telemetry-path must be a path such as /metrics'],
      [['--web.telemetry-path', '/status'], '--web.telemetry-path cannot be /status'],
      [['--web.systemd-socket', '--web.listen-address', ':9732'], 'exclude each other'],
      [['--config', config, '--config.file', config], '--config is another name for --config.file'],
      [['--web.listen-address', ':1', '--web.listen-address', 'nope'], 'got "nope"'],
    ];
    const results = await Promise.all(cases.map(([args]) => run(process.execPath, [BIN, ...args])));
    for (const [i, [args, message]] of cases.entries()) {
      expect(results[i]?.code, args.join(' ')).toBe(2);
      expect(results[i]?.stderr, args.join(' ')).toContain(message);
    }
    // Outside socket activation the flag fails at start, once, naming why.
    const none = await run(process.execPath, [BIN, '--config.file', config, '--web.systemd-socket'], {
      ...process.env,
      LISTEN_FDS: undefined,
      LISTEN_PID: undefined,
    });
    expect(none.code).toBe(1);
    expect(none.stderr.match(/LISTEN_FDS is not set/g)).toHaveLength(1);
  });

  it('serves on the socket systemd-socket-activate passes with --web.systemd-socket', async () => {
    if (!existsSync(SOCKET_ACTIVATE))
      throw new Error(`${SOCKET_ACTIVATE} is missing: apt-get install systemd`);
    const port = await freePort();
    // systemd-socket-activate listens, then runs the exporter with LISTEN_FDS=1 and LISTEN_PID set.
    const activated = serve(SOCKET_ACTIVATE, [
      '-l',
      `127.0.0.1:${port}`,
      process.execPath,
      BIN,
      '--config.file',
      config,
      '--web.systemd-socket',
    ]);
    // The tool listens at once and runs the exporter on the first connection, which waits in
    // the socket's backlog meanwhile.
    await new Promise<void>((resolve) => {
      const check = () => (activated.stderr().includes('Listening on') ? resolve() : setTimeout(check, 20));
      check();
    });
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('station_exporter_build_info');
    expect(activated.stderr()).toContain('metrics at the socket systemd passed as fd 3 (/metrics)');
    expect(await activated.stop()).toBe(0);
  });
});
