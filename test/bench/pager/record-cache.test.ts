import { describe, expect, it } from 'vitest';
import type { RecordSpec } from '../../../bench/pager/record.ts';
import { recordingKey } from '../../../bench/pager/record-cache.ts';

const spec: RecordSpec = {
  seed: 7,
  scale: { sites: 1, linesPerSite: 2, stationsPerLine: 10, measurementNames: 20, unitsPerHour: 30 },
  names: ['vcc_3v3'],
  startMs: 0,
  endMs: 3_600_000,
  scrapeMs: 60_000,
  pollMs: 60_000,
  process: { drift: false, events: [] },
  keep: new Map([['up', [{}]]]),
  out: '/tmp/a.om',
};

describe('the recording cache key', () => {
  it('does not depend on where the recording is written or who hears the progress', () => {
    expect(recordingKey({ ...spec, out: '/elsewhere/b.om', progress: () => {} }, 'src')).toBe(
      recordingKey(spec, 'src'),
    );
  });

  it('changes with the run, the selectors kept and the code', () => {
    const key = recordingKey(spec, 'src');
    expect(recordingKey({ ...spec, seed: 8 }, 'src')).not.toBe(key);
    expect(recordingKey({ ...spec, endMs: 7_200_000 }, 'src')).not.toBe(key);
    expect(
      recordingKey(
        { ...spec, faults: [{ atMs: 60_000, kind: 'scenario', patch: { refuseTokens: true } }] },
        'src',
      ),
    ).not.toBe(key);
    expect(recordingKey({ ...spec, keep: new Map([['up', [{ job: 'x' }]]]) }, 'src')).not.toBe(key);
    expect(recordingKey(spec, 'other source')).not.toBe(key);
  });

  it('does not depend on the order of the selectors kept', () => {
    const a = new Map([
      ['up', [{}]],
      ['station_units_total', [{}]],
    ]);
    const b = new Map([...a].reverse());
    expect(recordingKey({ ...spec, keep: a }, 'src')).toBe(recordingKey({ ...spec, keep: b }, 'src'));
  });
});
