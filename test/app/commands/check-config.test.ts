import { describe, expect, it } from 'vitest';
import { planReport } from '../../../src/app/commands/check-config.ts';
import { configFromObject } from '../../../src/config/load.ts';

const config = (extra: Record<string, unknown> = {}) =>
  configFromObject(
    {
      upstream: { base_url: 'http://x', token: 't', max_requests_per_second: 10 },
      windows: ['15m', '1h', '24h'],
      ...extra,
    },
    { env: {}, baseDir: '/' },
  );
const counts = { stations: 1000, groups: 0, lines: 100, sites: 5 };
const NOW = new Date('2026-03-01T12:00:00Z');

describe('check-config plan', () => {
  it('prints every (window, level) with its refresh, the total against the budget, and the series', () => {
    const text = planReport(config(), counts, { shard: { index: 0, total: 1 }, now: NOW });
    expect(text).toMatch(/summary\s+15m\s+station\s+1000\s+2m[45]\ds \(stretched\)/);
    // Units: 1,000 ids of 25 characters need 4 requests within the 8 KiB URL limit, and the re-read
    // sweep passes 24h + 1h in 30-minute spans plus one remainder, 51 spans of each batch per hour.
    const sweepPerPoll = Math.ceil((4 * (50 + 1)) / 60);
    expect(text).toMatch(new RegExp(`units\\s+-\\s+-\\s+${4 + sweepPerPoll}\\s+1m\\s`));
    expect(text).toMatch(/summary\s+24h\s+site\s+5\s+15m \(longest\)/);
    expect(text).toContain('of 570.0 planned');
    expect(text).toContain('Idle skipping: on');
    // Summary 10 × 3 × 1,105 and covered/total stations 2 × (100 lines + 5 sites); units
    // (3 kinds + serials) × 3 windows + 3 kinds of station_units_total + last unit time + future
    // + late = 18 × 1,000, and the yield and retry CUSUMs' counters by default: the retry chart of
    // each station and the 3 charts of each line, 1,000 + 3 × 100; targets 3 × 100 lines +
    // 3 × 1,000 stations; station_info 1,000.
    const summary = 10 * 3 * 1105 + 2 * 105;
    const units = 18 * 1000 + 1000 + 3 * 100;
    const targets = 3 * 100 + 3 * 1000;
    expect(text).toContain(`Total: ${summary + units + targets + 1000} series.`);
    // Each collector is one block whose header is the sum of its rows.
    const headers = [...text.matchAll(/^ {2}(\w+): (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
    expect(headers).toEqual([
      ['topology', 1000],
      ['summary', summary],
      ['units', units],
      ['targets', targets],
    ]);
  });

  it('says what it drops, and that idle skipping needs the units collector', () => {
    const text = planReport(
      config({ units: { enabled: false } }),
      { ...counts, stations: 5000, lines: 500 },
      { shard: { index: 0, total: 1 }, now: NOW },
    );
    expect(text).toContain('dropped, in this order:');
    expect(text).toContain('- summary 15m station: 5000 requests');
    expect(text).toContain('Idle skipping: off: it needs the units collector');
  });

  it('plans one shard within its share of the budget', () => {
    const text = planReport(
      config(),
      { ...counts, stations: 250 },
      { shard: { index: 1, total: 4 }, now: NOW },
    );
    expect(text).toContain('budget 150.0 requests/min');
    expect(text).toContain('shard 1/4');
  });
});
