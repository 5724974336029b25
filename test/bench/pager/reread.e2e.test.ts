/**
 * The bench records with a week-long re-read sweep instead of the exporter's default hour
 * (bench/pager/record.ts, `rereadMs`), which saves decoding a week of measurement records every
 * simulated hour. That is only sound if the recording does not depend on it: the sweep finds
 * records that arrived later than the overlap, and the simulator makes none. This records the
 * same plant both ways, past a whole default sweep (the first hour re-reads the week), and
 * compares the files (the series the shipped alerts read) byte for byte. In the e2e project for its length (about a minute of CPU).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RecordSpec, record } from '../../../bench/pager/record.ts';
import { defaultRuleFiles, evaluationIntervalMs, loadAlerts } from '../../../bench/pager/rules.ts';

const MIN = 60_000;
const START = Date.parse('2026-11-01T00:00:00.000Z');

describe('the re-read sweep of the bench', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pager-reread-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // What the shipped alerts read, as the bench keeps it. The exporter's own request counters do
  // depend on the sweep; no shipped alert reads them.
  const promConfig = path.resolve('prometheus/prometheus.example.yml');
  const { selectors: keep } = loadAlerts(defaultRuleFiles(promConfig), evaluationIntervalMs(promConfig));

  const spec = (out: string, rereadMs?: number): RecordSpec => ({
    seed: 7,
    scale: { sites: 1, linesPerSite: 2, stationsPerLine: 10, measurementNames: 20, unitsPerHour: 30 },
    names: ['vcc_3v3', 'board_temp'],
    startMs: START,
    endMs: START + 75 * MIN,
    scrapeMs: MIN,
    pollMs: MIN,
    process: { drift: false, events: [] },
    keep,
    out: path.join(dir, out),
    ...(rereadMs === undefined ? {} : { rereadMs }),
  });

  it('leaves the recording unchanged', async () => {
    const hourly = spec('hourly.om');
    const weekly = spec('weekly.om', 7 * 24 * 60 * MIN);
    await record(hourly);
    await record(weekly);
    const a = readFileSync(hourly.out, 'utf8');
    const b = readFileSync(weekly.out, 'utf8');
    expect(a.length).toBeGreaterThan(1000);
    expect(b === a).toBe(true);
  }, 600_000);
});
