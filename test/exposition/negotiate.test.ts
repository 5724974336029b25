import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/exposition/cache.ts';

const PROMETHEUS =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

describe('negotiate format', () => {
  it.each([
    [PROMETHEUS, 'openmetrics'],
    ['*/*', 'text'],
    [undefined, 'text'],
    ['', 'text'],
    ['text/plain', 'text'],
    ['text/plain;version=0.0.4;q=0.5,application/openmetrics-text;version=1.0.0;q=0.9', 'openmetrics'],
    ['application/openmetrics-text; version="0.0.1"', 'openmetrics'],
    ['application/openmetrics-text;version=1.0.0;q=0.2,text/plain;version=0.0.4;q=0.5', 'text'],
    ['application/openmetrics-text;version=1.0.0;q=0,*/*', 'text'],
    ['application/openmetrics-text;version=2.0.0,text/plain;q=0.1', 'text'],
    ['application/json', 'text'],
    ['APPLICATION/OpenMetrics-Text; Version=1.0.0', 'openmetrics'],
    ['text/plain;version=0.0.4,application/openmetrics-text;version=1.0.0', 'text'],
  ])('Accept %j -> %s', (accept, format) => {
    expect(negotiate(accept, undefined).format).toBe(format);
  });
});

describe('negotiate gzip', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate', false],
    ['gzip;q=0', false],
    ['gzip;q=0.0, deflate', false],
    ['*', true],
    ['*;q=0', false],
    ['gzip;q=0, *', false],
    ['br, x-gzip;q=0.5', true],
    ['identity', false],
  ])('Accept-Encoding %j -> %s', (encoding, gzip) => {
    expect(negotiate(PROMETHEUS, encoding).gzip).toBe(gzip);
  });
});
