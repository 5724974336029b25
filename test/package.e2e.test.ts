/**
 * The published package as a user gets it: `npm pack`, install the tarball into an empty folder,
 * run `npx station-exporter`. Runtime dependencies come from the npm cache (or the registry).
 * The build itself is fresh: test/global-setup.ts rebuilt dist/ when it was stale.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve('.');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };
const dir = mkdtempSync(path.join(tmpdir(), 'pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for its children. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

function run(cmd: 'npm' | 'npx', args: string[], cwd: string): string {
  return execFileSync(cmd, args, {
    cwd,
    env: userEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('npm package', () => {
  it('packs dist/ without sources or tests, installs into an empty folder and runs with npx', () => {
    // prepare already ran (global setup), so the pack skips scripts instead of compiling again.
    const packed = JSON.parse(
      run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toContain('bin/station-exporter.js');
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('config.example.yaml');
    expect(files.filter((f) => /^(src|test|bench|scripts)\/|^dist\/\.build-stamp$/.test(f))).toEqual([]);

    const app = path.join(dir, 'app');
    mkdirSync(app);
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, packed[0]!.filename)],
      app,
    );
    const help = run('npx', ['station-exporter', '--help'], app);
    expect(help).toContain('Usage:');
    expect(help).toContain('check-config [[--config.file] FILE]');
    expect(run('npx', ['station-exporter', '--version'], app)).toBe(`station-exporter ${pkg.version}\n`);
    // No development dependency came along: the package runs on its runtime dependencies alone.
    const installed = JSON.parse(run('npm', ['ls', '--all', '--json'], app)) as {
      dependencies: Record<string, unknown>;
    };
    expect(Object.keys(installed.dependencies)).toEqual([pkg.name]);
    expect(JSON.stringify(installed)).not.toMatch(/"(tsx|typescript|vitest|esbuild)"/);
  }, 90_000);
});
