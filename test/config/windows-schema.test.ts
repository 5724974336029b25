import { describe, expect, it } from 'vitest';
import { ConfigError, configFromObject, parseConfig } from '../../src/config/load.ts';

const upstream = { base_url: 'https://stations.example.com/api', token: 'abc' };

function windowsOf(windows: unknown[]) {
  return configFromObject({ upstream, windows }, { env: {}, baseDir: '/' }).windows;
}

function issuesOf(windows: unknown[]): string[] {
  try {
    windowsOf(windows);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('week windows', () => {
  it('default to ISO weeks, starting on Monday', () => {
    expect(windowsOf([{ name: 'this_week', type: 'week', timezone: 'Europe/Berlin' }])).toEqual([
      { name: 'this_week', kind: 'week', timezone: 'Europe/Berlin', weekStarts: 'monday' },
    ]);
  });

  it('take a chosen first day of the week, from YAML as written', () => {
    const config = parseConfig(
      [
        'upstream: { base_url: "https://stations.example.com/api", token: abc }',
        'windows:',
        '  - 1h',
        '  - { name: this_week, type: week, timezone: America/New_York, week_starts: sunday }',
      ].join('\n'),
      { env: {}, baseDir: '/', source: 'inline.yaml' },
    );
    expect(config.windows).toEqual([
      { name: '1h', kind: 'rolling', durationMs: 3_600_000 },
      { name: 'this_week', kind: 'week', timezone: 'America/New_York', weekStarts: 'sunday' },
    ]);
  });

  it('reject a missing or unknown zone, an unknown day and a misspelt key, by path', () => {
    expect(
      issuesOf([
        { name: 'a', type: 'week' },
        { name: 'b', type: 'week', timezone: 'Europe/Berln' },
        { name: 'c', type: 'week', timezone: 'UTC', week_starts: 'Monday' },
        { name: 'd', type: 'week', timezone: 'UTC', week_starts: 1 },
        { name: 'e', type: 'week', timezone: 'UTC', week_start: 'monday' },
      ]),
    ).toEqual([
      'windows[0].timezone: is required',
      'windows[1].timezone: unknown time zone "Europe/Berln"',
      'windows[2].week_starts: must be one of monday, tuesday, wednesday, thursday, friday, saturday, sunday',
      'windows[3].week_starts: must be one of monday, tuesday, wednesday, thursday, friday, saturday, sunday',
      'windows[4].week_start: unknown key (did you mean "week_starts"?)',
    ]);
  });

  it('share the names of every other window: duplicates are refused', () => {
    expect(
      issuesOf([
        { name: 'week', type: 'week', timezone: 'UTC' },
        { name: 'week', type: 'rolling', duration: '7d' },
      ]),
    ).toEqual(['windows[1]: duplicate window name "week"']);
  });

  it('name week among the types when the type is unknown', () => {
    expect(issuesOf([{ name: 'w', type: 'weekly', timezone: 'UTC' }])).toEqual([
      'windows[0].type: must be one of rolling, shift, today, week',
    ]);
  });
});
