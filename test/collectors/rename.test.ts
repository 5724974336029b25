/**
 * Issue 33, defect 10: a renamed site must carry its new name on every family at the next poll,
 * even when its stations are idle and nothing new is fetched (kept summary answers, held records).
 */
import { describe, expect, it } from 'vitest';
import { ActivityBoard } from '../../src/collectors/activity.ts';
import { enabledDataCollectors } from '../../src/collectors/index.ts';
import type { Family } from '../../src/exposition/model.ts';
import type { MeasurementRecord, Site, UnitRecord } from '../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../helpers/fake-client.ts';
import { jobContext } from '../helpers/job-context.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');

const renamed = (site: Site): Site => ({
  ...site,
  name: 'Works',
  lines: site.lines.map((l, i) => ({ ...l, name: `Assembly ${i + 1}` })),
});

/** Every site and line label value of every sample. */
function names(families: readonly Family[]): Set<string> {
  const out = new Set<string>();
  for (const f of families) {
    for (const s of f.samples) {
      for (const m of s.labels.text.matchAll(/\b(site|line)="([^"]*)"/g)) out.add(`${m[1]}=${m[2]}`);
    }
  }
  return out;
}

describe('a renamed site, lines included', () => {
  it('shows its new names on every family of every collector at the next poll, without new data', async () => {
    const plant = plantOf([2, 3]);
    const ids = plant.lines.flatMap((l) => l.elements.map((e) => e.id));
    // One unit and one value per station an hour ago: the stations are idle since.
    const units: UnitRecord[] = ids.map((stationId, i) => ({
      stationId,
      slot: null,
      serial: `SN${i}`,
      time: T0 - 60 * MIN,
      direction: 'output',
      result: 'pass',
      unitType: null,
      mode: null,
    }));
    const values: MeasurementRecord[] = ids.map((stationId, i) => ({
      stationId,
      slot: null,
      serial: `SN${i}`,
      time: T0 - 60 * MIN,
      name: 'temp',
      raw: '20',
      value: 20,
      unit: 'C',
      type: null,
      upper: 30,
      lower: 10,
      mode: null,
    }));
    let fetched = false;
    const ctx = jobContext(
      {
        windows: ['15m', '2h'],
        measurements: { enabled: true, names: ['temp'], control: { names: ['temp'] } },
      },
      {
        summary: (q) => ({ uniqueUnits: q.stationIds.length }),
        // Everything on the first fetch, nothing new afterwards.
        units: () => (fetched ? [] : units),
        metrics: () => (fetched ? [] : values),
      },
    );
    const context = { ...ctx, activity: new ActivityBoard() };
    const jobs = enabledDataCollectors(ctx.config).map((c) => c.createJob(context));
    expect(jobs.length).toBeGreaterThanOrEqual(4);
    // Units first, as the scheduler's first round does: the summary job reads its activity.
    const poll = async (topology: ReturnType<typeof topologyOf>, now: number) => {
      const out: Family[] = [];
      for (const job of [...jobs].reverse())
        out.push(...(await job.poll({ topology, now: new Date(now) })).families);
      return out;
    };
    const before = names(await poll(topologyOf([plant]), T0));
    expect(before).toEqual(new Set(['site=Plant', 'line=Line 1', 'line=Line 2']));
    fetched = true;
    const after = await poll(topologyOf([renamed(plant)]), T0 + MIN);
    expect(names(after)).toEqual(new Set(['site=Works', 'line=Assembly 1', 'line=Assembly 2']));
    // The kept summaries are among them: idle stations were not asked again.
    const summaries = after.filter((f) => f.desc.name.startsWith('station_site_'));
    expect(summaries.some((f) => f.samples.length > 0)).toBe(true);
  });
});
