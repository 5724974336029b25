/**
 * The quality engineer's Phase I loop through `station-exporter limits`, against the realistic
 * plant served on a socket with one assignable cause (a 3 sigma shift of one station's vcc_3v3
 * for two hours): study, approve, exclude the shift with its cause, study again (the changed
 * entry loses its approval, the unchanged one keeps it), approve again; a reason is required.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { runLimits } from '../../../src/app/limits/command.ts';
import { recordUpstream } from '../../../src/app/record-upstream.ts';
import { isApproved, parseLimits } from '../../../src/config/limits-schema.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { type RunningSimulator, startSimulatorServer } from '../../../src/simulator/index.ts';

const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);
const HOUR = 3_600_000;
const FROM = NOW - 24 * HOUR;
const FAULT = { from: FROM + 10 * HOUR, to: FROM + 12 * HOUR };
const NAME = 'vcc_3v3';
const PLANT = { kind: 'realistic', stops: false } as const;
const iso = (ms: number) => new Date(ms).toISOString();

/** Runs `limits ...` in this process; its exit code and what it printed. */
async function limits(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
  try {
    const code = await runLimits(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

type Entry = Record<string, unknown> & { slot: string | null; excluded: unknown[] };
const readYaml = (file: string) => parse(readFileSync(file, 'utf8')) as { version: 1; charts: Entry[] };

describe('limits study and approve', () => {
  let sim: RunningSimulator;
  let dir: string;
  let config: string;
  let file: string;
  let stationId: string;

  beforeAll(async () => {
    const probe = await startSimulatorServer({ now: () => NOW, plant: PLANT });
    const span = { from: new Date(NOW - HOUR), to: new Date(NOW), names: [NAME] };
    stationId = probe.sim.plant.stations.find((s) => probe.sim.metricsBetween([s.id], span).length > 0)!.id;
    await probe.close();
    const shift = {
      kind: 'shift',
      stationId,
      name: NAME,
      sigmas: 3,
      fromMs: FAULT.from,
      toMs: FAULT.to,
    } as const;
    sim = await startSimulatorServer({
      now: () => NOW,
      plant: PLANT,
      process: { drift: false, events: [shift] },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'limits-'));
    config = path.join(dir, 'config.yaml');
    file = path.join(dir, 'limits.yaml');
    writeFileSync(
      config,
      stringify({
        upstream: { base_url: sim.url, token: 'demo-token' },
        measurements: { enabled: true, names: [NAME], control: { names: [NAME] } },
      }),
    );
  });

  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the loop: study, exclude with a cause, study again, approve', async () => {
    const first = await limits(
      'study',
      ...['--config', config, '--from', iso(FROM), '--to', iso(NOW), '--station', stationId, '--out', file],
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`(${stationId})  ${NAME} slot 1`);
    expect(first.stdout).toMatch(/normality: Anderson-Darling A² [\d.]+, p/);
    expect(first.stdout).toMatch(/lag-1 autocorrelation -?[\d.]+/);
    expect(first.stdout).toMatch(/detectors calibrated on: sd [\d.e-]+, phi -?[\d.e-]+, skewness -?[\d.e-]+/);
    const studied = readYaml(file);
    expect(studied.charts.length).toBeGreaterThanOrEqual(2);
    expect(studied.charts.every((c) => c.approved_by === null && c.approved_at === null)).toBe(true);
    const one = studied.charts.find((c) => c.slot === '1')!;
    // Each entry carries the shape its study measured, for the detectors' calibration.
    expect(studied.charts.every((c) => (c.calibration as { sd: number }).sd > 0)).toBe(true);
    // The shift is the first stretch the report lists for slot 1, with its exclusion to copy.
    const block = first.stdout.split(`${NAME} slot 1`)[1]!.split('\n').slice(0, 12).join('\n');
    const at = /look at \(\d+ stretch\(es\)[^\n]*\n {4}(\S+)/.exec(block)?.[1];
    expect(Date.parse(at!)).toBeGreaterThan(FAULT.from - HOUR);
    expect(Date.parse(at!)).toBeLessThan(FAULT.to);

    // Approve all, then exclude the shift on slot 1 and study again on the file.
    expect((await limits('approve', '--by', 'j.doe', '--reason', 'initial Phase I study', file)).code).toBe(
      0,
    );
    const approved = readYaml(file);
    expect(approved.charts.every((c) => c.approved_by === 'j.doe' && typeof c.approved_at === 'string')).toBe(
      true,
    );
    const edited = approved.charts.map((c) =>
      c.slot === '1'
        ? { ...c, excluded: [{ from: iso(FAULT.from), to: iso(FAULT.to), cause: 'fixture 2 swapped' }] }
        : c,
    );
    writeFileSync(file, stringify({ version: 1, charts: edited }));
    const again = await limits('study', '--config', config, '--station', stationId, '--limits', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/approval of j\.doe dropped: the numbers changed/);
    expect(again.stdout).toMatch(/approval kept: j\.doe/);
    const restudied = readYaml(file);
    const oneAgain = restudied.charts.find((c) => c.slot === '1')!;
    expect(oneAgain.approved_by).toBeNull();
    expect(oneAgain.reason).toBe('initial Phase I study');
    // The same span, written back in UTC without milliseconds.
    expect(oneAgain.excluded).toEqual([
      {
        from: iso(FAULT.from).replace('.000Z', 'Z'),
        to: iso(FAULT.to).replace('.000Z', 'Z'),
        cause: 'fixture 2 swapped',
      },
    ]);
    expect((oneAgain.study as { excluded_points: number }).excluded_points).toBeGreaterThan(10);
    expect(oneAgain.center).toBeLessThan(one.center as number);
    expect(oneAgain.sigma).toBeLessThan(one.sigma as number);
    const others = restudied.charts.filter((c) => c.slot !== '1');
    expect(others.every((c) => c.approved_by === 'j.doe')).toBe(true);

    // Approve the re-established chart; the file is a valid limits file, every entry approved.
    const done = await limits('approve', '--by', 'j.doe', '--chart', 'slot=1', file);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('approved 1 chart(s)');
    // The exporter's own loader takes the file, and charts slot 1 against the approved entry.
    const final = parseLimits(readFileSync(file, 'utf8'), file);
    expect(final.charts.every(isApproved)).toBe(true);
    const frozen = final.approved({ station: stationId, metric: NAME, slot: '1', product: null });
    expect(frozen?.center).toBe(oneAgain.center);
    expect(frozen?.calibration?.sigma).toBe((oneAgain.calibration as { sd: number }).sd);
    expect(frozen?.excluded).toEqual([{ fromMs: FAULT.from, toMs: FAULT.to, cause: 'fixture 2 swapped' }]);
  }, 120_000);

  it('refuses to approve an entry without a reason, and writes nothing', async () => {
    const bare = path.join(dir, 'bare.yaml');
    expect(
      (
        await limits(
          'study',
          '--config',
          config,
          '--from',
          iso(FROM),
          '--to',
          iso(NOW),
          '--station',
          stationId,
          '--out',
          bare,
        )
      ).code,
    ).toBe(0);
    const before = readFileSync(bare, 'utf8');
    const refused = await limits('approve', '--by', 'j.doe', bare);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refused, no reason: charts\[0\]\.reason/);
    expect(readFileSync(bare, 'utf8')).toBe(before);
  }, 120_000);

  it('studies a recording as it studies the upstream it was recorded from', async () => {
    const recording = path.join(dir, 'recording');
    // Six hours keep the recording (every station's units and summaries too) small.
    const from = NOW - 6 * HOUR;
    await recordUpstream({ config: await loadConfig(config), fromMs: from, toMs: NOW, outDir: recording });
    const live = path.join(dir, 'live.yaml');
    const replayed = path.join(dir, 'replayed.yaml');
    const span = ['--from', iso(from), '--to', iso(NOW), '--station', stationId];
    expect((await limits('study', '--config', config, ...span, '--out', live)).code).toBe(0);
    const r = await limits('study', '--replay', recording, '--name', NAME, ...span, '--out', replayed);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const charts = readYaml(live).charts;
    expect(charts.length).toBeGreaterThan(0);
    expect(readYaml(replayed).charts).toEqual(charts);
  }, 120_000);

  it('names bad arguments with the usage', async () => {
    const r = await limits('study', '--from', 'yesterday');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage:');
    expect((await limits('approve', file)).stderr).toContain('--by NAME is required');
  });
});
