/**
 * A `week` window end to end: the summary requests the simulator receives start at the week's
 * first local midnight, and the exported series carry the window's name and the upstream's
 * answer for exactly that span. The harness clock is Saturday 2026-11-21 12:34:56 UTC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParsedSample, parseExposition } from '../helpers/exposition.ts';
import { dataExposition, FIXED_NOW, type Harness, startHarness } from '../helpers/harness.ts';

// Local midnights converted with the tz database (GNU date), independent of src/time.
const BERLIN_MONDAY = '2026-11-15T23:00:00.000Z'; // Monday 16 November 00:00 CET
const NEW_YORK_SUNDAY = '2026-11-15T05:00:00.000Z'; // Sunday 15 November 00:00 EST

let h: Harness;
let samples: ParsedSample[];

beforeAll(async () => {
  h = await startHarness({
    // A small plant: the simulator walks every unit of the week to answer.
    sim: { scale: { sites: 1, linesPerSite: 1, stationsPerLine: 3, unitsPerHour: 30 } },
    config: {
      windows: [
        '1h',
        { name: 'week', type: 'week', timezone: 'Europe/Berlin' },
        { name: 'us_week', type: 'week', timezone: 'America/New_York', week_starts: 'sunday' },
      ],
      summary: { levels: ['station', 'site'] },
      units: { enabled: false },
    },
  });
  expect(await h.exporter.scheduler.pollOnce()).toBe(true);
  samples = parseExposition(await dataExposition(h.exporter));
}, 60_000);
afterAll(() => h.close());

const summaryRequests = () => h.sim.sim.requests.filter((r) => r.path === '/station/summary');

describe('a week window, end to end', () => {
  it('asks the upstream from the first local midnight of the week to now', () => {
    const spans = new Set(summaryRequests().map((r) => `${r.query.from?.[0]} ${r.query.to?.[0]}`));
    const now = new Date(FIXED_NOW).toISOString();
    expect([...spans].sort()).toEqual(
      [
        `${new Date(FIXED_NOW - 3_600_000).toISOString()} ${now}`,
        `${BERLIN_MONDAY} ${now}`,
        `${NEW_YORK_SUNDAY} ${now}`,
      ].sort(),
    );
  });

  it("exports each station's upstream summary of that span under the window's name", () => {
    const { plant } = h.sim.sim;
    const spans = [
      { window: 'week', from: new Date(BERLIN_MONDAY) },
      { window: 'us_week', from: new Date(NEW_YORK_SUNDAY) },
    ];
    for (const { window, from } of spans) {
      for (const station of plant.stations) {
        const want = h.sim.sim.summaryOf([station.id], from, new Date(FIXED_NOW));
        const got = samples.find(
          (s) =>
            s.name === 'station_unique_output_units' &&
            s.labels.window === window &&
            s.labels.station_id === station.id,
        );
        expect(got?.value, `${window} ${station.id}`).toBe(want.unique_output);
      }
    }
    // A week holds more units than its last hour: the span really is days long.
    const total = (window: string) =>
      samples
        .filter((s) => s.name === 'station_site_unique_output_units' && s.labels.window === window)
        .reduce((sum, s) => sum + s.value, 0);
    expect(total('week')).toBeGreaterThan(24 * total('1h'));
  });
});
