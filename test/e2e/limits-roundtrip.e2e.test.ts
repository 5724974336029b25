/**
 * The quality engineer's round trip, end to end, as processes: the realistic plant served on a
 * socket on the real clock with one assignable cause in the past (a 3 sigma shift of one
 * station's vcc_3v3 for two hours); `station-exporter limits study` flags it, the engineer
 * excludes it with its cause and studies again (centre and sigma move toward the clean process),
 * `limits approve` approves; the exporter, running all along with `limits_file` pointing at the
 * (unapproved) file, takes the approval at its next poll, and a real Prometheus scraping it shows
 * the chart's source "approved", the approval and exclusion times the Grafana annotations read,
 * and the chart's centre and limits at the approved values, not the rolling ones.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument, stringify } from 'yaml';
import { type RunningSimulator, startSimulatorServer } from '../../src/simulator/index.ts';
import { prometheusPath, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';

const enabled = Boolean(prometheusPath()) || Boolean(process.env.CI);
const BIN = path.resolve('bin/station-exporter.js');
const HOUR = 3_600_000;
// The real clock: the exporter is a separate process, so it runs on it too.
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const FROM = NOW - 24 * HOUR;
const FAULT = { from: NOW - 14 * HOUR, to: NOW - 12 * HOUR };
const NAME = 'vcc_3v3';
const SLOT = '1';
const CAUSE = 'fixture 2 swapped';
const PLANT = { kind: 'realistic', stops: false } as const;
const iso = (ms: number) => new Date(ms).toISOString();

/** Runs the built command line to its end. */
function run(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Polls `get` until it returns a value, or throws after `timeoutMs`. */
async function until<T>(what: string, get: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Mean and moving-range sigma (MR-bar / 1.128) of a series, computed here from the records. */
function naive(values: readonly number[]) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  let mr = 0;
  for (let i = 1; i < values.length; i++) mr += Math.abs(values[i]! - values[i - 1]!);
  return { mean, sigma: mr / (values.length - 1) / 1.128 };
}

type Entry = Record<string, unknown> & { slot: string | null; center: number; sigma: number };
const chartsOf = (file: string) => (parse(readFileSync(file, 'utf8')) as { charts: Entry[] }).charts;

describe.skipIf(!enabled)('the limits round trip: study, exclude, approve, chart in Prometheus', () => {
  let sim: RunningSimulator;
  let dir: string;
  let studyConfig: string;
  let exporterConfig: string;
  let file: string;
  let stationId: string;
  let exporter: { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<unknown> };
  let prom: RunningPrometheus | undefined;

  beforeAll(async () => {
    const probe = await startSimulatorServer({ now: () => NOW, plant: PLANT });
    const span = { from: new Date(NOW - HOUR), to: new Date(NOW), names: [NAME] };
    stationId = probe.sim.plant.stations.find((s) => probe.sim.metricsBetween([s.id], span).length > 0)!.id;
    await probe.close();
    sim = await startSimulatorServer({
      plant: PLANT,
      process: {
        drift: false,
        events: [{ kind: 'shift', stationId, name: NAME, sigmas: 3, fromMs: FAULT.from, toMs: FAULT.to }],
      },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'limits-roundtrip-'));
    file = path.join(dir, 'limits.yaml');
    const base = {
      upstream: { base_url: sim.url, token: 'demo-token' },
      units: { enabled: false },
      summary: { enabled: false },
    };
    const control = { names: [NAME], baseline: { rolling: '12h' }, evaluation_window: '30m' };
    studyConfig = path.join(dir, 'study.yaml');
    writeFileSync(
      studyConfig,
      stringify({ ...base, measurements: { enabled: true, names: [NAME], control } }),
    );
    exporterConfig = path.join(dir, 'exporter.yaml');
    writeFileSync(
      exporterConfig,
      stringify({
        ...base,
        measurements: {
          enabled: true,
          interval: '2s',
          names: [NAME],
          control: { ...control, limits_file: 'limits.yaml' },
        },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    if (exporter) {
      exporter.child.kill('SIGTERM');
      await exporter.exited;
    }
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('charts against the approved limits, with the approval and the exclusion as annotations', async () => {
    // 1. The study over a day holding the shift flags it on the chart.
    const study = ['--config', studyConfig, '--name', NAME, '--station', stationId];
    const first = await run([
      'limits',
      'study',
      ...study,
      '--from',
      iso(FROM),
      '--to',
      iso(NOW),
      '--out',
      file,
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const block = first.stdout.split(`${NAME} slot ${SLOT}`)[1]!.split('\n').slice(0, 12).join('\n');
    const flagged = /look at \(\d+ stretch\(es\)[^\n]*\n {4}(\S+)/.exec(block)?.[1];
    expect(Date.parse(flagged!)).toBeGreaterThan(FAULT.from - HOUR);
    expect(Date.parse(flagged!)).toBeLessThan(FAULT.to);
    const studied = chartsOf(file).find((c) => c.slot === SLOT)!;
    expect(studied.approved_by).toBeNull();

    // 2. The exporter runs with the unapproved file: every chart rolls.
    const child = spawn(process.execPath, [
      BIN,
      ...['--config', exporterConfig, '--web.listen-address', '127.0.0.1:0'],
    ]);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    exporter = { child, output: () => output, exited: new Promise((r) => child.on('exit', r)) };
    const address = await until(
      'the exporter to listen',
      () => /metrics at http:\/\/(\S+)\/metrics/.exec(output)?.[1],
    );
    prom = await startPrometheus(address);
    const chart = `station_id="${stationId}",metric="${NAME}",slot="${SLOT}"`;
    await prom.waitFor(
      `station_measurement_control_limits_info{${chart}}`,
      (r) => r.length === 1 && r[0]!.metric.source === 'rolling',
      90_000,
    );
    await prom.waitFor(`station_measurement_control_center{${chart}}`, (r) => r.length === 1, 60_000);
    const rolling = Number((await prom.query(`station_measurement_control_center{${chart}}`))[0]!.value[1]);

    // 3. The engineer excludes the shift with its cause (an edit of the YAML) and studies again.
    const doc = parseDocument(readFileSync(file, 'utf8'));
    const index = chartsOf(file).findIndex((c) => c.slot === SLOT);
    doc.setIn(
      ['charts', index, 'excluded'],
      doc.createNode([{ from: iso(FAULT.from), to: iso(FAULT.to), cause: CAUSE }]),
    );
    writeFileSync(file, doc.toString());
    const again = await run(['limits', 'study', ...study, '--limits', file]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const restudied = chartsOf(file).find((c) => c.slot === SLOT)!;
    // The clean process, computed here from the simulator's records outside the shift.
    const records = sim.sim
      .metricsBetween([stationId], { from: new Date(FROM), to: new Date(NOW), names: [NAME] })
      .filter((r) => r.slot === SLOT && r.value !== '')
      .map((r) => ({ t: Date.parse(r.time_created), v: Number(r.value) }))
      .filter((p) => p.t >= FROM && p.t < NOW)
      .sort((a, b) => a.t - b.t);
    const clean = naive(records.filter((p) => p.t < FAULT.from || p.t >= FAULT.to).map((p) => p.v));
    const all = naive(records.map((p) => p.v));
    expect(studied.center).toBeCloseTo(all.mean, 6);
    expect(restudied.center).toBeCloseTo(clean.mean, 6);
    expect(Math.abs(restudied.center - clean.mean)).toBeLessThan(Math.abs(studied.center - clean.mean));
    expect(restudied.sigma).toBeLessThan(studied.sigma);
    expect(Math.abs(restudied.sigma - clean.sigma) / clean.sigma).toBeLessThan(0.05);

    // 4. Approved; the exporter takes it at its next poll.
    const approve = await run([
      'limits',
      'approve',
      '--by',
      'j.doe',
      '--reason',
      'Phase I, fixture swap excluded',
      file,
    ]);
    expect(approve.stderr).toBe('');
    expect(approve.code).toBe(0);
    const approved = chartsOf(file).find((c) => c.slot === SLOT)!;
    expect(approved.center).toBe(restudied.center);
    const approvedAt = Date.parse(String(approved.approved_at));
    await prom.waitFor(
      `station_measurement_control_limits_info{${chart}}`,
      (r) => r.length === 1 && r[0]!.metric.source === 'approved' && r[0]!.metric.approved_by === 'j.doe',
      90_000,
    );
    const value = async (expr: string) => {
      const r = await prom!.query(expr);
      expect(r, expr).toHaveLength(1);
      return Number(r[0]!.value[1]);
    };
    await prom.waitFor(
      `station_measurement_control_limits_approved_timestamp_seconds{${chart}}`,
      (r) => r.length === 1,
    );
    expect(await value(`station_measurement_control_limits_approved_timestamp_seconds{${chart}}`)).toBe(
      approvedAt / 1000,
    );
    expect(
      await value(
        `station_measurement_control_limits_exclusion_timestamp_seconds{${chart},cause="${CAUSE}"}`,
      ),
    ).toBe(FAULT.from / 1000);
    // The centre and limits are the approved ones (a sample scraped after the approval).
    await prom.waitFor(
      `station_measurement_control_center{${chart}}`,
      (r) => Number(r[0]?.value[1]) === approved.center,
    );
    expect(approved.center).not.toBe(rolling);
    expect(await value(`station_measurement_control_ucl{${chart}}`)).toBe(approved.ucl);
    expect(await value(`station_measurement_control_lcl{${chart}}`)).toBe(approved.lcl);
    // A station the file does not name still rolls.
    const others = await prom.query(`station_measurement_control_limits_info{station_id!="${stationId}"}`);
    expect(others.length).toBeGreaterThan(0);
    expect(new Set(others.map((r) => r.metric.source))).toEqual(new Set(['rolling']));
    expect(exporter.output()).toContain('approved control limits loaded');
  }, 240_000);
});
