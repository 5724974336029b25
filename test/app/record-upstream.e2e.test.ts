/**
 * `station-exporter record` as a user runs it, stopped part way: by SIGTERM (it stops cleanly
 * and leaves the directory as it was) and by SIGKILL (the previous recording survives). And
 * `simulate --replay` on recordings that are truncated or mixed from two runs: refused, with a
 * message that names the file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import { loadRecording, RECORDING_FILES } from '../../src/simulator/replay.ts';

const BIN = path.resolve('bin/station-exporter.js');
const DATA_FILES = [
  RECORDING_FILES.sites,
  RECORDING_FILES.units,
  RECORDING_FILES.metrics,
  RECORDING_FILES.summaries,
];
const SCALE = { sites: 1, linesPerSite: 1, stationsPerLine: 3 };

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

function start(args: string[]): { child: ChildProcess; exit: Promise<Exit>; stderr: () => string } {
  // A process that outlives its test (a replay that should have been refused) is ended anyway.
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 45_000,
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exit = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exit, stderr: () => stderr };
}

/** Resolves once the child's stderr contains `text`. */
async function stderrContains(run: ReturnType<typeof start>, text: string): Promise<void> {
  while (!run.stderr().includes(text)) {
    const exited = await Promise.race([
      once(run.child.stderr!, 'data').then(() => false),
      run.exit.then(() => true),
    ]);
    if (exited) throw new Error(`exited before "${text}": ${run.stderr()}`);
  }
}

/** Every file of a directory, by name, with its bytes; a directory maps to 'dir'. */
function snapshot(dir: string): Map<string, Buffer | 'dir'> {
  return new Map(
    readdirSync(dir, { withFileTypes: true }).map((e) => [
      e.name,
      e.isDirectory() ? 'dir' : readFileSync(path.join(dir, e.name)),
    ]),
  );
}

let work: string;
let fast: RunningSimulator;
let other: RunningSimulator;
let slow: RunningSimulator;
let n = 0;

function configFor(sim: RunningSimulator): string {
  const file = path.join(work, `config-${n++}.yaml`);
  writeFileSync(
    file,
    `upstream:\n  base_url: ${sim.url}\n  token: demo-token\n  concurrency: 1\n` +
      'windows: [1h]\nmeasurements:\n  enabled: true\n  names: [vcc_3v3]\n',
  );
  return file;
}

function record(sim: RunningSimulator, out: string) {
  return start(['record', '--config', configFor(sim), '--from=-3h', '--to', 'now', '--out', out]);
}

/** A complete recording from a fast simulator into `out`; returns its id. */
async function recordComplete(out: string, sim = fast): Promise<string> {
  const done = await record(sim, out).exit;
  expect(done.code, done.stderr).toBe(0);
  return JSON.parse(readFileSync(path.join(out, RECORDING_FILES.meta), 'utf8')).id;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'record-'));
  fast = await startSimulatorServer({ seed: 5, scale: SCALE });
  other = await startSimulatorServer({ seed: 7, scale: SCALE });
  // Slow enough that a record run is still fetching when the test stops it: 6 spans of half an
  // hour, each at least 400 ms, one at a time.
  slow = await startSimulatorServer({ seed: 6, scale: SCALE, scenario: { latencyMs: 400 } });
});

afterAll(async () => {
  await Promise.all([fast.close(), other.close(), slow.close()]);
  rmSync(work, { recursive: true, force: true });
});

// Each record run starts a process (about 4 s on a loaded two-core machine); a test runs up to four.
describe('record stopped part way', { timeout: 60_000 }, () => {
  it('SIGTERM: exit 143, nothing written, the previous recording intact and replayable', async () => {
    const dir = path.join(work, 'term');
    const id = await recordComplete(dir);
    const before = snapshot(dir);

    const run = record(slow, dir);
    await stderrContains(run, 'record: sites:');
    run.child.kill('SIGTERM');
    const stopped = await run.exit;
    // Handled: the process exits on its own with the documented code, not killed by the signal.
    expect(stopped.signal).toBeNull();
    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toContain(`record: stopped by SIGTERM: nothing written, ${dir} is as it was`);

    expect(snapshot(dir)).toEqual(before);
    for (const name of DATA_FILES) expect(() => gunzipSync(before.get(name) as Buffer)).not.toThrow();
    const recording = await loadRecording(dir);
    expect(recording.meta.id).toBe(id);
    expect(recording.units.length).toBeGreaterThan(0);

    // And the simulator serves it.
    const replay = spawn(process.execPath, [BIN, 'simulate', '--replay', dir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const [first] = (await once(replay.stdout!, 'data')) as [Buffer];
      expect(first.toString()).toContain(`replaying ${dir} (recording ${id})`);
      const url = /listening on (\S+)/.exec(first.toString())![1];
      const sites = await fetch(`${url}/sites`, { headers: { authorization: 'Bearer demo-token' } });
      expect(sites.status).toBe(200);
      expect(((await sites.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      replay.kill('SIGTERM');
      await once(replay, 'exit');
    }
  });

  it('SIGINT during a first recording: exit 130 and no recording, not a partial one', async () => {
    const dir = path.join(work, 'int');
    const run = record(slow, dir);
    await stderrContains(run, 'record: sites:');
    run.child.kill('SIGINT');
    const stopped = await run.exit;
    expect(stopped.code).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('SIGKILL: the previous recording stays whole; the next run clears what the killed one left', async () => {
    const dir = path.join(work, 'kill');
    const id = await recordComplete(dir);
    const before = snapshot(dir);

    const run = record(slow, dir);
    await stderrContains(run, 'record: sites:');
    run.child.kill('SIGKILL');
    expect((await run.exit).signal).toBe('SIGKILL');

    const after = snapshot(dir);
    for (const [name, bytes] of before) expect(after.get(name), name).toEqual(bytes);
    expect((await loadRecording(dir)).meta.id).toBe(id);
    const left = [...after.keys()].filter((name) => !before.has(name));
    expect(left).toHaveLength(1);

    const next = await recordComplete(dir);
    expect(next).not.toBe(id);
    expect(readdirSync(dir).sort()).toEqual([...before.keys()].sort());
  });
});

describe('simulate --replay refuses a recording that is not whole', { timeout: 60_000 }, () => {
  let good: string;
  let second: string;

  beforeAll(async () => {
    good = path.join(work, 'good');
    second = path.join(work, 'second');
    await Promise.all([recordComplete(good), recordComplete(second, other)]);
  }, 60_000);

  /** A copy of the good recording, changed by `damage`. */
  function damaged(name: string, damage: (dir: string) => void): string {
    const dir = path.join(work, name);
    cpSync(good, dir, { recursive: true });
    damage(dir);
    return dir;
  }

  async function replayError(dir: string): Promise<string> {
    const r = await start(['simulate', '--replay', dir, '--port', '0']).exit;
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('    at ');
    return r.stderr;
  }

  it('a truncated file, by its size', async () => {
    const dir = damaged('truncated', (d) => {
      const file = path.join(d, RECORDING_FILES.metrics);
      truncateSync(file, Math.floor(readFileSync(file).length / 2));
    });
    expect(await replayError(dir)).toMatch(
      /^simulate: --replay: \S+metrics\.ndjson\.gz: \d+ bytes, but meta\.json says \d+: not the file of recording [0-9a-f-]{36} \(truncated, or from another recording\); record it again\n$/,
    );
  });

  it("a file of another recording beside the first one's meta.json", async () => {
    const dir = damaged('mixed', (d) =>
      cpSync(path.join(second, RECORDING_FILES.units), path.join(d, RECORDING_FILES.units)),
    );
    expect(await replayError(dir)).toContain(`${path.join(dir, RECORDING_FILES.units)}: `);
    await expect(loadRecording(dir)).rejects.toThrow(/units\.ndjson\.gz: .*from another recording/);
  });

  it('a file of the same size with other bytes, by its SHA-256', async () => {
    const dir = damaged('flipped', (d) => {
      const file = path.join(d, RECORDING_FILES.sites);
      const bytes = readFileSync(file);
      bytes[bytes.length >> 1]! ^= 0xff;
      writeFileSync(file, bytes);
    });
    await expect(loadRecording(dir)).rejects.toThrow(/sites\.ndjson\.gz: SHA-256 [0-9a-f]{64} differs from/);
  });

  it('no meta.json, and a meta.json of the format that had no checksums', async () => {
    const none = damaged('no-meta', (d) => rmSync(path.join(d, RECORDING_FILES.meta)));
    expect(await replayError(none)).toContain('meta.json: missing, so');
    const old = damaged('format-1', (d) => {
      const file = path.join(d, RECORDING_FILES.meta);
      const { from, to, measurementNames } = JSON.parse(readFileSync(file, 'utf8'));
      writeFileSync(file, JSON.stringify({ format: 1, from, to, measurementNames }));
    });
    expect(await replayError(old)).toContain('meta.json: format 1 has no sizes or checksums');
  });
});
