import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/exposition/negotiate.ts';

const PROMETHEUS =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

// What Prometheus sends with --enable-feature=native-histograms.
const PROMETHEUS_NATIVE =
  'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

describe('negotiate format', () => {
  it.each([
    [PROMETHEUS, 'openmetrics'],
    [PROMETHEUS_NATIVE, 'protobuf'],
    [
      'application/vnd.google.protobuf; proto="io.prometheus.client.MetricFamily"; encoding=delimited',
      'protobuf',
    ],
    // Other protobuf encodings and messages are not served: the next acceptable range wins.
    [
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text,text/plain;q=0.5',
      'text',
    ],
    ['application/vnd.google.protobuf;encoding=delimited,application/openmetrics-text;q=0.5', 'openmetrics'],
    [
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.1,application/openmetrics-text;version=1.0.0',
      'openmetrics',
    ],
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
