import { describe, expect, it } from 'vitest';
import {
  fixedOffsetMs,
  parseMeasurements,
  parseNumber,
  parseSites,
  parseTime,
  parseUnits,
  SITES_SLICE,
} from '../../src/upstream/parse.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

const S = 'a'.repeat(24);
const metric = (over: Record<string, unknown>) => ({
  station_id: S,
  slot: null,
  unit_serial: 'SN1',
  time_created: '2026-07-01T12:00:00',
  tz: null,
  mode: null,
  tags: [],
  name: 'v',
  value: '1',
  unit: 'V',
  type: null,
  limit_upper: null,
  limit_lower: null,
  ...over,
});

describe('parseNumber', () => {
  it('accepts plain decimal and exponent notation, and finite JSON numbers', () => {
    const cases: Array<[string | number, number]> = [
      ['5', 5],
      ['-5', -5],
      ['+5', 5],
      ['3.25', 3.25],
      ['.5', 0.5],
      ['5.', 5],
      ['1e3', 1000],
      ['-2.5E-3', -0.0025],
      ['007', 7],
      // Fixed-width and padded fields: ASCII whitespace around a numeral is not part of it.
      [' 125 ', 125],
      ['3.30\t', 3.3],
      ['\r\n -2.5e1 \v\f', -25],
      [42, 42],
      [-0.5, -0.5],
    ];
    for (const [input, want] of cases) expect(parseNumber(input), String(input)).toBe(want);
  });

  it('takes other notations, inner blanks and non-ASCII padding as non-numeric', () => {
    const cases = [
      '0x10',
      '0b11',
      '0o7',
      '1,5',
      'Infinity',
      '-Infinity',
      'NaN',
      ' 0x10 ',
      ' Infinity',
      '1 000',
      '- 5',
      '\u00a05',
      '5\u2003',
      '',
      ' ',
      '\t\n',
      '1e',
      'e5',
      '.',
      '1_000',
      '--1',
      'PASS',
    ];
    for (const input of cases) expect(parseNumber(input), JSON.stringify(input)).toBeUndefined();
    expect(parseNumber(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseNumber(Number.NaN)).toBeUndefined();
    expect(parseNumber(null)).toBeUndefined();
  });
});

describe('fixedOffsetMs', () => {
  it('reads offsets in the usual spellings', () => {
    const h = 3_600_000;
    expect(fixedOffsetMs('+02:00')).toBe(2 * h);
    expect(fixedOffsetMs('-0530')).toBe(-5.5 * h);
    expect(fixedOffsetMs('UTC+8')).toBe(8 * h);
    expect(fixedOffsetMs('GMT-03:30')).toBe(-3.5 * h);
    expect(fixedOffsetMs('Z')).toBe(0);
    expect(fixedOffsetMs('UTC')).toBe(0);
    expect(fixedOffsetMs('Europe/Berlin')).toBeUndefined();
    expect(fixedOffsetMs('+25:00')).toBeUndefined();
  });
});

describe('record times without an offset', () => {
  const yielder = new LoopYielder();
  const parseOne = async (over: Record<string, unknown>, naiveTimeZone?: string) =>
    (await parseMeasurements([metric(over)], yielder, naiveTimeZone ? { naiveTimeZone } : {})).records[0]
      ?.time;

  it("reads a naive time in the record's IANA zone, east and west of UTC, across DST", async () => {
    // Shanghai is UTC+8 all year: 12:00 there is 04:00 UTC.
    expect(await parseOne({ tz: 'Asia/Shanghai' })).toBe(Date.UTC(2026, 6, 1, 4, 0, 0));
    // Chicago in July is CDT, UTC-5: 12:00 there is 17:00 UTC.
    expect(await parseOne({ tz: 'America/Chicago' })).toBe(Date.UTC(2026, 6, 1, 17, 0, 0));
    // ... and in January CST, UTC-6.
    expect(await parseOne({ tz: 'America/Chicago', time_created: '2026-01-15 12:00:00' })).toBe(
      Date.UTC(2026, 0, 15, 18, 0, 0),
    );
    // Berlin in summer is UTC+2; fractions of a second are kept.
    expect(await parseOne({ tz: 'Europe/Berlin', time_created: '2026-07-01T12:00:00.250' })).toBe(
      Date.UTC(2026, 6, 1, 10, 0, 0, 250),
    );
  });

  it("reads a naive time at the record's fixed offset", async () => {
    expect(await parseOne({ tz: '+05:30' })).toBe(Date.UTC(2026, 6, 1, 6, 30, 0));
    expect(await parseOne({ tz: 'UTC-3' })).toBe(Date.UTC(2026, 6, 1, 15, 0, 0));
  });

  it('falls back to UTC without a tz or with an unreadable one; an explicit offset always wins', async () => {
    expect(await parseOne({ tz: null })).toBe(Date.UTC(2026, 6, 1, 12, 0, 0));
    expect(await parseOne({ tz: 'Mars/Olympus' })).toBe(Date.UTC(2026, 6, 1, 12, 0, 0));
    expect(await parseOne({ tz: 'Asia/Shanghai', time_created: '2026-07-01T12:00:00Z' })).toBe(
      Date.UTC(2026, 6, 1, 12, 0, 0),
    );
    expect(await parseOne({ tz: 'Asia/Shanghai', time_created: '2026-07-01T12:00:00+01:00' })).toBe(
      Date.UTC(2026, 6, 1, 11, 0, 0),
    );
  });

  it('honours upstream.naive_time_zone: UTC or one zone for every record', async () => {
    expect(await parseOne({ tz: 'Asia/Shanghai' }, 'UTC')).toBe(Date.UTC(2026, 6, 1, 12, 0, 0));
    expect(await parseOne({ tz: 'Asia/Shanghai' }, 'America/New_York')).toBe(Date.UTC(2026, 6, 1, 16, 0, 0));
  });

  it('applies to unit records and to time_inserted too', async () => {
    const list = await parseUnits(
      [
        {
          station_id: S,
          slot: '',
          unit_serial: 'U1',
          time_created: '2026-07-01 12:00:00',
          time_inserted: '2026-07-01 12:10:00',
          tz: 'Asia/Tokyo',
          mode: null,
          tags: [],
          unit_type: null,
          direction: 'output',
          result: '',
        },
      ],
      yielder,
    );
    expect(list.records[0]).toMatchObject({
      time: Date.UTC(2026, 6, 1, 3, 0, 0),
      inserted: Date.UTC(2026, 6, 1, 3, 10, 0),
      slot: null,
      result: null,
    });
  });

  it('rejects impossible calendar dates', () => {
    expect(parseTime('2026-02-30T12:00:00')).toBeUndefined();
    expect(parseTime('2026-13-01T12:00:00')).toBeUndefined();
    expect(parseTime('2026-02-28T12:00:00')).toBe(Date.UTC(2026, 1, 28, 12));
  });
});

describe('optional labels', () => {
  it('maps an empty slot to no slot, as Prometheus would see it', async () => {
    const yielder = new LoopYielder();
    const list = await parseMeasurements(
      [metric({ slot: '' }), metric({ slot: null }), metric({ slot: '1' })],
      yielder,
    );
    expect(list.records.map((r) => r.slot)).toEqual([null, null, '1']);
  });
});

/** A yielder that counts its yields. */
class CountingYielder extends LoopYielder {
  yields = 0;
  override yieldToLoop(): Promise<void> {
    this.yields++;
    return super.yieldToLoop();
  }
}

describe('parseSites', () => {
  const hex = (n: number) => n.toString(16).padStart(24, '0');
  const station = (n: number) => ({ id: hex(n), name: `ST${n}`, description: '', type: 'station' });

  it('checks lines, elements and stations in slices across the whole tree, yielding between them', async () => {
    // Many short lines (each under a slice) and malformed elements: the count spans lists.
    const lines = Array.from({ length: 300 }, (_, i) => ({
      id: hex(1000 + i),
      name: `L${i}`,
      description: '',
      elements: [
        station(5000 + i),
        {},
        {},
        { type: 'group', id: hex(9000 + i), name: 'G', description: '', stations: [{}, station(20000 + i)] },
      ],
    }));
    const sites = [
      { id: hex(1), name: 'S', description: null, lines },
      { id: 'nope', name: 'X', lines: [] },
      {},
    ];
    const yielder = new CountingYielder();
    const list = await parseSites(sites, yielder);
    // 3 sites, 300 lines, 4 elements and 2 group stations a line.
    const checks = 3 + 300 * (1 + 4 + 2);
    expect(yielder.yields).toBe(Math.floor((checks - 1) / SITES_SLICE));
    expect(list.received).toBe(3);
    expect(list.skipped).toEqual({ schema: 300 * 3 + 1, bad_id: 1 });
    const [site] = list.records;
    expect(list.records).toHaveLength(1);
    expect(site?.lines).toHaveLength(300);
    expect(site?.lines[7]?.elements).toEqual([
      { kind: 'station', id: hex(5007), name: 'ST5007', description: '' },
      {
        kind: 'group',
        id: hex(9007),
        name: 'G',
        description: '',
        stations: [{ id: hex(20007), name: 'ST20007', description: '' }],
      },
    ]);
  });
});
