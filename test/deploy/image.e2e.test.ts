/**
 * The container image, built and run: scripts/image/build.sh builds the repository's Dockerfile
 * with buildah on a local node:24-slim equivalent (scripts/image/base.sh, from Debian's and the
 * npm registry's packages: no container registry is reachable here), and podman runs it. Needs
 * root with buildah, podman, runc and mmdebstrap, and podman-compose and docker-compose for the
 * compose demo (Debian packages; .ci/run installs them).
 * Outside CI the test skips when they are missing; under CI=true it fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/prometheus.ts';

const TOOLS = ['buildah', 'podman', 'runc', 'mmdebstrap', 'podman-compose', 'docker-compose'];
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
const root = process.getuid?.() === 0;
const enabled = (missing.length === 0 && root) || Boolean(process.env.CI);

/** podman with the runtime and limits these machines need (crun fails; rlimits need a capability). */
const PODMAN = ['--runtime', 'runc'];
const ULIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=32768:32768'];

function run(cmd: string, args: string[], timeoutMs = 60_000, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env });
  return {
    status: r.status,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    output: `${r.stdout ?? ''}${r.stderr ?? ''}`,
  };
}

function podman(...args: string[]) {
  return run('podman', [...PODMAN, ...args]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks `get` every half second, up to 30 s, until `done` holds of its answer; returns the last answer. */
async function until<T>(get: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  let value = await get();
  for (let i = 1; i < 60 && !done(value); i++) {
    await sleep(500);
    value = await get();
  }
  return value;
}

/** The body of a GET, or '' while nothing answers. */
const body = (url: string) =>
  fetch(url).then(
    (r) => r.text(),
    () => '',
  );

describe.skipIf(!enabled)('container image (buildah, podman)', () => {
  let image = '';
  let container = '';

  beforeAll(() => {
    if (missing.length > 0)
      throw new Error(`missing ${missing.join(', ')} (Debian packages; .ci/run installs them)`);
    if (!root) throw new Error('building images here needs root');
    const built = run('scripts/image/build.sh', ['localhost/station-exporter:test'], 15 * 60_000);
    expect(built.status, built.output.slice(-4000)).toBe(0);
    image = built.stdout.trim().split('\n').at(-1) ?? '';
    const size = Number(podman('image', 'inspect', '--format', '{{.Size}}', image).stdout.trim());
    console.log(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);
  }, 20 * 60_000);

  afterAll(() => {
    if (container) podman('rm', '-f', container);
  });

  it('exits 2 with a clear message when run bare without a config', () => {
    const r = podman('run', '--rm', ...ULIMITS, image);
    expect(r.status, r.output).toBe(2);
    expect(r.output).toContain('cannot read config file');
  });

  it('starts the demo when asked, read-only and as uid 1000: /metrics, /-/healthy and the HEALTHCHECK pass', async () => {
    // A free port of the host's network, which the container shares: never one another server holds.
    const port = await freePort();
    const started = podman(
      'run',
      '-d',
      '--read-only',
      ...ULIMITS,
      '--network',
      'host',
      image,
      '--web.listen-address',
      `127.0.0.1:${port}`,
    );
    expect(started.status, started.output).toBe(0);
    container = started.stdout.trim();
    const healthy = await until(
      () =>
        fetch(`http://127.0.0.1:${port}/-/healthy`).then(
          (r) => r.ok,
          () => false,
        ),
      (ok) => ok,
    );
    expect(healthy, podman('logs', container).output.slice(-2000)).toBe(true);
    const metrics = await until(
      () => body(`http://127.0.0.1:${port}/metrics`),
      (text) => /^station_info\{/m.test(text),
    );
    expect(metrics).toMatch(/^station_info\{/m);
    expect(metrics).toMatch(/^process_resident_memory_bytes /m);
    expect(podman('exec', container, 'id', '-u').stdout.trim()).toBe('1000');
    // The root filesystem is read-only: nothing can be written, not even by mistake.
    expect(podman('exec', container, 'sh', '-c', 'touch /app/x').status).not.toBe(0);
    // The image's HEALTHCHECK probes the default port (the next test runs it there).
    // (It is kept only in the docker format: scripts/image/build.sh builds with --format docker.)
    const inspected = JSON.parse(podman('image', 'inspect', image).stdout)[0] ?? {};
    expect(JSON.stringify(inspected.Healthcheck?.Test ?? [])).toContain('/-/healthy');
    expect(inspected.Config?.User).toBe('node');
  }, 120_000);

  it('passes its HEALTHCHECK when the exporter listens on the default port', async () => {
    const started = podman(
      'run',
      '-d',
      '--read-only',
      ...ULIMITS,
      '--network',
      'none',
      image,
      '--web.listen-address',
      ':9732',
    );
    expect(started.status, started.output).toBe(0);
    const id = started.stdout.trim();
    try {
      const status = await until(
        () => podman('healthcheck', 'run', id).status ?? 1,
        (code) => code === 0,
      );
      expect(status, podman('logs', id).output.slice(-2000)).toBe(0);
    } finally {
      podman('rm', '-f', id);
    }
  }, 120_000);

  it('holds the bundle alone: no dependency tree, no sources', () => {
    // dist/cli.js carries the runtime dependencies (scripts/bundle.mjs), so no node_modules, and
    // with it no development tool (TypeScript, Vitest, tsx, Biome, esbuild), can be inside.
    const r = podman('run', '--rm', ...ULIMITS, '--entrypoint', 'sh', image, '-c', 'ls -A /app /app/dist');
    expect(r.status, r.output).toBe(0);
    const names = r.stdout.split(/\s+/);
    expect(names).toContain('cli.js');
    expect(names).not.toContain('node_modules');
    expect(r.stdout).not.toMatch(/\bsrc\b|\btest\b/);
  });

  it("runs the compose demo's simulator and exporter from it (podman-compose); docker-compose parses the file", async () => {
    const compose = 'deploy/compose/docker-compose.yml';
    const parsed = run('docker-compose', ['-f', compose, 'config', '--quiet']);
    expect(parsed.status, parsed.output).toBe(0);
    // The compose file's image name, so that nothing is built or pulled; podman-compose calls
    // podman through a wrapper that selects runc.
    expect(podman('tag', image, 'localhost/station-exporter:local').status).toBe(0);
    const wrapper = `${mkdtempSync(join(tmpdir(), 'podman-'))}/podman`;
    writeFileSync(wrapper, '#!/bin/sh\nexec podman --runtime runc "$@"\n', { mode: 0o755 });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/metrics`;
    const env = { ...process.env, STATION_EXPORTER_PORT: String(port) };
    const pc = (...args: string[]) =>
      run(
        'podman-compose',
        ['--podman-path', wrapper, '-p', 'stationtest', '-f', compose, ...args],
        180_000,
        env,
      );
    pc('down');
    // Nothing answers on the port before the stack is up.
    expect(await body(url)).toBe('');
    try {
      // The exporter's port on the host is a free one (STATION_EXPORTER_PORT), so that an exporter
      // already on 9732 (a developer's demo) is neither read nor in the way.
      const up = pc('up', '-d', '--no-build', 'simulator', 'exporter');
      expect(up.status, up.output.slice(-3000)).toBe(0);
      const metrics = await until(
        () => body(url),
        (text) => /^station_exporter_upstream_up 1$/m.test(text),
      );
      // The exporter reached the simulator by its service name, and both health checks pass.
      expect(metrics).toMatch(/^station_exporter_upstream_up 1$/m);
      expect(metrics).toMatch(/^station_info\{/m);
      for (const c of ['stationtest_exporter_1', 'stationtest_simulator_1'])
        expect(podman('healthcheck', 'run', c).status, c).toBe(0);
      // Those metrics were the container's: with its exporter stopped, nothing answers there.
      expect(pc('stop', 'exporter').status).toBe(0);
      expect(
        await until(
          () => body(url),
          (text) => text === '',
        ),
      ).toBe('');
    } finally {
      pc('down');
    }
  }, 240_000);
});
