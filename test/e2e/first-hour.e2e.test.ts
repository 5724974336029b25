/**
 * A newcomer's first hour, as a real process: a wrong token and a port in use must each say
 * what is wrong and what to do, not "keeping the last good data" or a bare "EADDRINUSE".
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/server.ts';
import { checkMetrics } from '../helpers/promtool.ts';

const BIN = path.resolve('bin/station-exporter.js');

let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulatorServer({
    seed: 5,
    scale: { sites: 1, linesPerSite: 1, stationsPerLine: 2 },
    tokens: { 'right-token': { sites: 'all' } },
  });
  dir = mkdtempSync(path.join(tmpdir(), 'first-hour-'));
});

afterAll(() => sim?.close());

function start(args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, ...args]);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(output: () => string, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = output().match(pattern);
    if (m) return m;
    if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('first-hour stumbles', () => {
  it('a wrong token: the log and /-/ready say "authentication failed (HTTP 401)", and no data is claimed', async () => {
    const cfg = path.join(dir, 'wrong-token.yaml');
    writeFileSync(cfg, `upstream:\n  base_url: ${sim.url}\n  token: wrong-token\n`);
    const run = start(['--config', cfg, '--web.listen-address', '127.0.0.1:0']);
    try {
      const url = (await waitFor(run.output, /metrics at (http:\/\/\S+)\/metrics/))[1] ?? '';
      const line = (await waitFor(run.output, /^.*poll failed.*$/m))[0];
      expect(line).toContain('authentication failed (HTTP 401)');
      expect(line).toContain('no data yet');
      const ready = await fetch(`${url}/-/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toContain('authentication failed (HTTP 401)');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    expect(run.output()).not.toContain('keeping the last good data');
  });

  it('a port in use: names the address and the flag that changes it, and exits 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const { port } = blocker.address() as { port: number };
    try {
      const run = start(['--web.listen-address', `127.0.0.1:${port}`]);
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`cannot listen on 127.0.0.1:${port}: the address is already in use`);
      expect(run.output()).toContain('--web.listen-address');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('exports the standard process_* and nodejs_* metrics, with values that match the process', async () => {
    const cfg = path.join(dir, 'right-token.yaml');
    writeFileSync(cfg, `upstream:\n  base_url: ${sim.url}\n  token: right-token\n`);
    const spawnedAt = Date.now() / 1000;
    const run = start(['once', '--config', cfg]);
    expect(await run.exited).toBe(0);
    const text = run.output();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    // Started after the spawn and before the exit, by this machine's clock.
    expect(value('process_start_time_seconds')).toBeGreaterThanOrEqual(Math.floor(spawnedAt) - 1);
    expect(value('process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    // A Node process with a heap holds tens of MiB; stdio and the sockets are open descriptors.
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(20 * 1024 * 1024);
    expect(value('process_open_fds')).toBeGreaterThanOrEqual(3);
    expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \S+$/m);
    expect(text).toMatch(new RegExp(`^nodejs_version_info\\{version="${process.version}"`, 'm'));
    expect(checkMetrics(text.slice(text.indexOf('# HELP'))).output).toBe('');
  });
});
