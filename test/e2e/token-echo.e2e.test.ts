/**
 * The token never leaves the process, whatever carries it. A gateway in front of the upstream
 * answers the record endpoints with HTTP 500 and echoes the request's headers, Authorization
 * included. The exporter runs as a user runs it (the built CLI), with the token inline from the
 * environment, from a token file, and after the file is rotated; then everything the process
 * writes (stdout, stderr, the landing and status pages, readiness and reload answers, and
 * check-config's output) is searched for every token it ever held.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../bench/shared/fault-proxy.ts';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/server.ts';

const BIN = path.resolve('bin/station-exporter.js');
const TOKEN = 'q7Rk2vX9mPz4Lw8nTb3Hc6Yd1Fs5Jg0A';
const ROTATED = 'rot-Zx81Qw0Pl5Mn3Bv7Cx2Lk4Jh6Gf9Ds';
const SECRETS = [TOKEN, ROTATED];
const MASK = '[REDACTED]';

const leaked = (text: string) => SECRETS.filter((s) => text.includes(s));

let sim: RunningSimulator;
let proxy: FaultProxy;
let dir: string;

beforeAll(async () => {
  sim = await startSimulatorServer({
    seed: 5,
    scale: { sites: 1, linesPerSite: 1, stationsPerLine: 3, measurementNames: 2, unitsPerHour: 60 },
    tokens: { [TOKEN]: { sites: 'all' }, [ROTATED]: { sites: 'all' } },
  });
  // Sites and summaries pass; the record endpoints fail with the headers echoed.
  proxy = await startFaultProxy(sim.url, { status: 500, echoHeaders: true, paths: ['/metrics', '/units'] });
  dir = mkdtempSync(path.join(tmpdir(), 'token-echo-'));
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
});

function file(name: string, body: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, body, { mode: 0o600 });
  return p;
}

function config(tokenLines: string, extra = ''): string {
  return [
    'upstream:',
    `  base_url: ${proxy.url}`,
    tokenLines,
    '  retry: { max_attempts: 1 }',
    // Every poll asks again: an open circuit would stop sending the rotated token.
    '  circuit_breaker: { failure_threshold: 100000 }',
    'windows: ["1h"]',
    'summary: { interval: 1s }',
    'measurements: { enabled: true, names: ["vcc_3v3"], interval: 1s }',
    'units: { interval: 1s }',
    'log: { level: debug }',
    extra,
  ].join('\n');
}

interface Run {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(run: Run, pattern: RegExp, from = 0, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = run.output().slice(from).match(pattern);
    if (m) return m;
    if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; output:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the token never leaves the process', () => {
  it('serve: a token file, its rotation, the pages and a reload, against a gateway that echoes headers', async () => {
    const tokenFile = file('token', `${TOKEN}\n`);
    const cfg = file('serve.yaml', config(`  token_file: ${tokenFile}`));
    const run = start(['--config', cfg, '--web.listen-address', '127.0.0.1:0', '--web.enable-lifecycle']);
    const emitted: string[] = [];
    try {
      const url = (await waitFor(run, /metrics at (http:\/\/[^\s]+)\/metrics/))[1] ?? '';
      // The record collectors' warning carries the echoed error body.
      await waitFor(run, /some record requests failed.*\[REDACTED\]/);
      const rotatedAt = run.output().length;
      writeFileSync(tokenFile, `${ROTATED}\n`);
      await waitFor(run, /some record requests failed.*\[REDACTED\]/, rotatedAt);
      await waitFor(run, /some record requests failed.*\[REDACTED\]/, run.output().length);
      for (const page of ['/', '/status', '/-/ready', '/-/healthy']) {
        const res = await fetch(`${url}${page}`);
        emitted.push(await res.text());
      }
      expect(emitted[1]).toContain(MASK);
      // A reload that fails, with the token pasted into the wrong field.
      writeFileSync(cfg, config(`  token_file: ${tokenFile}`, `server: { listen_address: "${ROTATED}" }`));
      const reload = await fetch(`${url}/-/reload`, { method: 'POST' });
      emitted.push(await reload.text());
      expect(reload.status).toBe(500);
      expect(emitted.at(-1)).toContain('server.listen_address');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    emitted.push(run.output());
    expect(run.output()).toContain(MASK);
    expect(leaked(emitted.join('\n'))).toEqual([]);
  });

  it('once: an inline token from the environment, in the log and the failure lines', async () => {
    const cfg = file('once.yaml', config(`  token: \${STATION_TOKEN}`));
    const run = start(['once', '--config', cfg], { STATION_TOKEN: TOKEN });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/HTTP 500.*\[REDACTED\]/);
    expect(leaked(run.output())).toEqual([]);
  });

  it('check-config: a token pasted into a duration or an address is not printed back', async () => {
    const env = { STATION_TOKEN: TOKEN };
    const tokenFile = file('token2', `${ROTATED}\n`);
    const inline = file(
      'inline.yaml',
      config(`  token: \${STATION_TOKEN}`).replace('interval: 1s }', `interval: ${TOKEN} }`),
    );
    const fromFile = file(
      'from-file.yaml',
      config(`  token_file: ${tokenFile}`, `server: { listen_address: "${ROTATED}" }`),
    );
    for (const cfg of [inline, fromFile]) {
      const run = start(['check-config', cfg], env);
      expect(await run.exited).toBe(2);
      expect(run.output()).toMatch(/summary\.interval|server\.listen_address/);
      expect(run.output()).toContain(MASK);
      expect(leaked(run.output())).toEqual([]);
    }
  });

  it('check-config and serve: a token in a window name (a label on /metrics) is refused, exit 2', async () => {
    const cfg = file(
      'label.yaml',
      config(`  token: \${STATION_TOKEN}`).replace(
        'windows: ["1h"]',
        `windows: [{ name: "w-\${STATION_TOKEN}", type: rolling, duration: 1h }]`,
      ),
    );
    for (const args of [
      ['check-config', cfg],
      ['--config', cfg, '--web.listen-address', '127.0.0.1:0'],
    ]) {
      const run = start(args, { STATION_TOKEN: TOKEN });
      expect(await run.exited).toBe(2);
      expect(run.output()).toMatch(/windows\[0\]\.name: contains a secret/);
      expect(leaked(run.output())).toEqual([]);
    }
  });
});
