/**
 * Record from the simulator, replay the recording, and check that an exporter gives the same
 * exposition from the replay as from the live simulator; then the same with time shifted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUpstream } from '../../src/app/record-upstream.ts';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { startSimulatorServer } from '../../src/simulator/index.ts';
import { loadRecording } from '../../src/simulator/replay.ts';
import type { Recording, SimulatorOptions } from '../../src/simulator/types.ts';
import { dataExposition, FIXED_NOW } from '../helpers/harness.ts';

const HOUR = 3_600_000;
const NAMES = ['vcc_3v3', 'idle_current'];

function configFor(url: string) {
  return configFromObject(
    {
      upstream: { base_url: url, token: 'demo-token', max_requests_per_second: 10_000, concurrency: 8 },
      windows: ['1h', '8h'],
      measurements: { enabled: true, names: NAMES, min_samples: 5 },
    },
    { baseDir: process.cwd(), source: 'replay test' },
  );
}

/** The data exposition an exporter gives against a simulator with these options, at `now`. */
async function expositionOf(opts: SimulatorOptions, now: number): Promise<string> {
  const sim = await startSimulatorServer({ ...opts, now: () => now });
  const exporter = wireExporter(configFor(sim.url), {
    wallClock: () => now,
    logger: pino({ level: 'silent' }),
  });
  try {
    expect(await exporter.scheduler.pollOnce()).toBe(true);
    return await dataExposition(exporter);
  } finally {
    await exporter.close();
    await sim.close();
  }
}

describe('record and replay', () => {
  let dir: string;
  let recording: Recording;
  let live: string;
  const progress: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'recording-'));
    const sim = await startSimulatorServer({ seed: 7, now: () => FIXED_NOW });
    try {
      const r = await recordUpstream({
        config: configFor(sim.url),
        fromMs: FIXED_NOW - 9 * HOUR,
        toMs: FIXED_NOW,
        outDir: dir,
        progress: (l) => progress.push(l),
      });
      expect(r.failures).toBe(0);
    } finally {
      await sim.close();
    }
    recording = await loadRecording(dir);
    live = await expositionOf({ seed: 7 }, FIXED_NOW);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores sites, units, measurements and the summaries of every window and level, with progress', () => {
    expect(recording.sites.length).toBe(2);
    expect(recording.units.length).toBeGreaterThan(1000);
    expect(new Set(recording.metrics.map((m) => m.name))).toEqual(new Set(NAMES));
    expect(new Set(recording.summaries.map((s) => Date.parse(s.to) - Date.parse(s.from)))).toEqual(
      new Set([HOUR, 8 * HOUR]),
    );
    expect(progress.some((l) => /^units: \d+ records in \d+ requests$/.test(l))).toBe(true);
    expect(progress.some((l) => l.startsWith('summaries: '))).toBe(true);
  });

  it('gives the exporter the same exposition as the live simulator', async () => {
    const replayed = await expositionOf({ replay: { recording } }, FIXED_NOW);
    expect(replayed.length).toBeGreaterThan(10_000);
    expect(replayed).toBe(live);
  }, 60_000);

  it('answers summaries as recorded, not recomputed', async () => {
    // Change one recorded answer: the exporter must show the changed value.
    const copy = structuredClone(recording);
    const target = copy.summaries.find(
      (s) => s.station_ids.length > 1 && Date.parse(s.to) - Date.parse(s.from) === HOUR,
    )!;
    target.summary.first_pass = 123_456;
    const replayed = await expositionOf({ replay: { recording: copy } }, FIXED_NOW);
    expect(live).not.toContain(' 123456\n');
    expect(replayed).toContain(' 123456\n');
  }, 60_000);

  it('moves recorded time to now with shiftToNow', async () => {
    const later = FIXED_NOW + 3 * 24 * HOUR;
    const shifted = await expositionOf({ replay: { recording, shiftToNow: true } }, later);
    const withoutTimes = (text: string) => text.split('\n').filter((l) => !l.includes('timestamp_seconds'));
    expect(withoutTimes(shifted)).toEqual(withoutTimes(live));
    // Times moved by exactly the shift.
    const times = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('station_last_unit_timestamp_seconds{'))
        .map((l) => Number(l.split(' ').at(-1)));
    const before = times(live);
    expect(before.length).toBeGreaterThan(0);
    expect(times(shifted)).toEqual(before.map((t) => t + (later - FIXED_NOW) / 1000));
  }, 60_000);
});
