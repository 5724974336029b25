import { describe, expect, it } from 'vitest';
import { describeConfig } from '../../src/config/describe.ts';
import { configFromObject } from '../../src/config/load.ts';

describe('describeConfig', () => {
  it('summarises the config without the token', () => {
    const config = configFromObject(
      {
        upstream: {
          base_url: 'https://stations.example.com/api/',
          token: 'very-secret-token',
          concurrency: 2,
        },
        discovery: { exclude: { stations: ['.*-spare'] } },
        windows: [
          '1h',
          { name: 'shift', type: 'shift', timezone: 'Europe/Berlin', shift_starts: ['06:00', '18:00'] },
          { name: 'today', type: 'today', timezone: 'UTC' },
          { name: 'week', type: 'week', timezone: 'Europe/Berlin' },
          { name: 'us_week', type: 'week', timezone: 'America/New_York', week_starts: 'sunday' },
        ],
        measurements: { enabled: true, names: ['voltage'] },
        units: { enabled: false },
      },
      { baseDir: '/', env: {} },
    );
    const text = describeConfig(config);
    expect(text).not.toContain('very-secret-token');
    expect(text).toBe(
      [
        'upstream: https://stations.example.com/api (inline token; timeout 30s, 2 concurrent, at most 10 requests/s)',
        'discovery: all accessible sites, exclude stations .*-spare; refresh every 10m',
        'windows: 1h (last 1h), shift (shifts starting 06:00, 18:00 in Europe/Berlin), today (today in UTC), ' +
          'week (week starting Monday in Europe/Berlin), us_week (week starting Sunday in America/New_York)',
        'summary: every 1m, levels station, group, line, site, upstream yields as ratio',
        'measurements: every 1m, voltage (min 30 samples, overlap 5m); value histograms for voltage (schema 8, at most 160 buckets)',
        'units: disabled',
        'listen: :9732',
        'log level: info',
      ].join('\n'),
    );
  });

  it('names the token file but not its content', () => {
    const config = configFromObject(
      { upstream: { base_url: 'http://127.0.0.1:8080', token_file: 'station-token' } },
      { baseDir: new URL('../fixtures/config/secrets', import.meta.url).pathname, env: {} },
    );
    const text = describeConfig(config);
    expect(text).toMatch(/token from file \S+\/secrets\/station-token/);
    expect(text).not.toContain('file-token-123');
  });

  it('names the products and what they key, only when products are configured', () => {
    const load = (raw: Record<string, unknown>) =>
      configFromObject({ upstream: { base_url: 'http://h', token: 't' }, ...raw }, { baseDir: '/', env: {} });
    expect(describeConfig(load({}))).not.toContain('products');
    const text = describeConfig(
      load({
        products: { label: true, allow: ['A', 'B'] },
        measurements: {
          enabled: true,
          names: ['vbat'],
          control: { names: [{ name: 'vb.*', by_product: true }] },
        },
      }),
    );
    expect(text.split('\n')).toContain(
      'products: A, B (any other type as "other", none as "unknown"); unit_type label on the unit counts; charts per product for vb.*',
    );
  });
});
