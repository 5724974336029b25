import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['1y', 31_536_000_000],
    ['1h0m1s250ms', 3_601_250],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    '0s',
    '0',
    '0ms',
    '-5m',
    '30',
    '1.5h',
    '5x',
    '1m1h',
    '1h 30m',
    ' 1h',
    'h',
    '1H',
    '99999999999999999w',
  ])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [500, '500ms'],
    [30_000, '30s'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
    [691_200_000, '1w1d'],
    [0, '0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    if (ms > 0) expect(parseDuration(text)).toBe(ms);
  });
});
