import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ExpositionCache,
  type ExpositionResponse,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
} from '../../src/exposition/cache.ts';
import { type Family, LabelSet } from '../../src/exposition/model.ts';
import { PROTOBUF_CONTENT_TYPE, renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { decodeDelimited } from '../helpers/protobuf.ts';
import { renderFamilies } from '../helpers/render.ts';
import { largeFamilies, representative } from './families.ts';
import { openMetricsProblems } from './openmetrics.ts';

function gauge(name: string, value: number): Family {
  return {
    desc: { name, kind: 'gauge', help: `${name} help` },
    samples: [{ labels: LabelSet.EMPTY, value }],
  };
}

const scrapes = (n: number): Family[] => [
  {
    desc: { name: 'exporter_scrapes_total', kind: 'counter', help: 'Scrapes.' },
    samples: [{ labels: LabelSet.EMPTY, value: n }],
  },
];

/** Decodes a response body, checking that a gzip body is one well-formed member. */
function decode(r: ExpositionResponse): string {
  if (r.contentEncoding !== 'gzip') return r.body.toString('utf8');
  const b = r.body;
  expect([...b.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
  const deflate = b.subarray(10, b.length - 8);
  const plain = zlib.inflateRawSync(deflate);
  // The final deflate block ends exactly before the trailer: one member, nothing after it.
  expect(() => zlib.inflateRawSync(deflate.subarray(0, -1))).toThrow();
  expect(b.readUInt32LE(b.length - 8)).toBe(zlib.crc32(plain) >>> 0);
  expect(b.readUInt32LE(b.length - 4)).toBe(plain.length);
  expect(zlib.gunzipSync(b).equals(plain)).toBe(true);
  return plain.toString('utf8');
}

describe('ExpositionCache', () => {
  it('serves published parts plus the dynamic tail in the text format', async () => {
    const cache = new ExpositionCache();
    await cache.publish('stations', representative);
    const r = await cache.respond('text', [gauge('tail', 1)]);
    expect(r.contentType).toBe(TEXT_CONTENT_TYPE);
    expect(r.contentEncoding).toBeUndefined();
    expect(decode(r)).toBe(renderFamilies([...representative, gauge('tail', 1)], 'text'));
  });

  it('serves OpenMetrics ending in # EOF after the tail', async () => {
    const cache = new ExpositionCache();
    await cache.publish('stations', representative);
    const r = await cache.respond('openmetrics', scrapes(3));
    expect(r.contentType).toBe(OPENMETRICS_CONTENT_TYPE);
    const body = decode(r);
    expect(body).toBe(`${renderFamilies([...representative, ...scrapes(3)], 'openmetrics')}# EOF\n`);
    expect(openMetricsProblems(body)).toEqual([]);
  });

  it('serves protobuf, plain and gzipped, as the parts and the tail rendered in one go', async () => {
    const cache = new ExpositionCache();
    await cache.publish('b', representative);
    await cache.publish('a', largeFamilies(300, 2));
    const expected = renderProtobufToBuffer([...largeFamilies(300, 2), ...representative, gauge('tail', 1)]);
    const plain = await cache.respond('protobuf', [gauge('tail', 1)]);
    expect(plain.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    expect(plain.body).toEqual(expected);
    const gzipped = await cache.respond('protobuf', [gauge('tail', 1)], { gzip: true });
    expect(gzipped.contentEncoding).toBe('gzip');
    expect(zlib.gunzipSync(gzipped.body)).toEqual(expected);
    expect(decodeDelimited(expected).map((f) => f.name)).toContain('tail');
  });

  it('checks OpenMetrics structure with a checker that can fail', () => {
    expect(openMetricsProblems('# TYPE a counter\na 1\n')).toHaveLength(2);
    expect(openMetricsProblems('a 1\n# EOF\n')).toEqual([
      'line 1: a 1: sample before TYPE',
      'line 1: a 1: name not in family  ()',
    ]);
  });

  it.each(['text', 'openmetrics'] as const)(
    'gzips %s as a single member that decodes to the plain body',
    async (format) => {
      const cache = new ExpositionCache();
      await cache.publish('a', largeFamilies(300, 3));
      await cache.publish('b', representative);
      const plain = await cache.respond(format, scrapes(1));
      const gz = await cache.respond(format, scrapes(1), { gzip: true });
      expect(gz.contentEncoding).toBe('gzip');
      expect(gz.body.length).toBeLessThan(plain.body.length / 3);
      expect(decode(gz)).toBe(decode(plain));
    },
  );

  it('gzips an empty cache with an empty tail', async () => {
    const r = await new ExpositionCache().respond('text', [], { gzip: true });
    expect(decode(r)).toBe('');
  });

  it('renders the tail per respond without a republish', async () => {
    const cache = new ExpositionCache();
    await cache.publish('p', [gauge('static', 7)]);
    const one = decode(await cache.respond('openmetrics', scrapes(1), { gzip: true }));
    const two = decode(await cache.respond('openmetrics', scrapes(2), { gzip: true }));
    expect(one).toContain('exporter_scrapes_total 1\n');
    expect(two).toContain('exporter_scrapes_total 2\n');
    expect(two.startsWith('# HELP static static help\n# TYPE static gauge\nstatic 7\n')).toBe(true);
  });

  it('orders parts by name whatever order they are published in, and keeps concurrent publishes', async () => {
    const cache = new ExpositionCache();
    await Promise.all([cache.publish('b', [gauge('bee', 2)]), cache.publish('a', [gauge('ay', 1)])]);
    await cache.publish('c', [gauge('cee', 3)]);
    const body = decode(await cache.respond('text', []));
    expect(body).toBe(renderFamilies([gauge('ay', 1), gauge('bee', 2), gauge('cee', 3)], 'text'));
    expect(cache.seriesCount()).toBe(3);
  });

  it('replaces a part on republish', async () => {
    const cache = new ExpositionCache();
    await cache.publish('a', [gauge('x', 1)]);
    await cache.publish('a', [gauge('x', 2)]);
    expect(decode(await cache.respond('text', [], { gzip: true }))).toBe(
      renderFamilies([gauge('x', 2)], 'text'),
    );
  });

  it('lets the publish made last win when a slower earlier one finishes after it', async () => {
    const cache = new ExpositionCache();
    const slow = cache.publish('a', largeFamilies(2000, 5));
    const fast = cache.publish('a', [gauge('x', 2)]);
    await Promise.all([slow, fast]);
    expect(decode(await cache.respond('text', []))).toBe(renderFamilies([gauge('x', 2)], 'text'));
    expect(cache.seriesCount()).toBe(1);
  });

  it('removes a part, and discards a publish of it still in flight', async () => {
    const cache = new ExpositionCache();
    await cache.publish('a', [gauge('x', 1)]);
    await cache.publish('b', [gauge('y', 1)]);
    const inFlight = cache.publish('a', [gauge('x', 2)]);
    cache.remove('a');
    expect(decode(await cache.respond('text', [], { gzip: true }))).toBe(
      renderFamilies([gauge('y', 1)], 'text'),
    );
    await inFlight;
    expect(decode(await cache.respond('text', [], { gzip: true }))).toBe(
      renderFamilies([gauge('y', 1)], 'text'),
    );
    cache.remove('missing');
    expect(cache.seriesCount()).toBe(1);
  });

  it('serves either the old or the new body while a large publish is in progress', async () => {
    const cache = new ExpositionCache();
    const oldFams = largeFamilies(500, 2);
    // 20,000 series: each format's render spans 4 yields of the renderer (one per 5,000 samples),
    // so that scrapes land mid-publish; each such scrape decodes and compares the whole body.
    const newFams = largeFamilies(10_000, 2);
    await cache.publish('a', oldFams);
    const expected = new Set([renderFamilies(oldFams, 'text'), renderFamilies(newFams, 'text')]);
    let done = false;
    const seen = new Set<string>();
    const publishing = cache.publish('a', newFams).then(() => {
      done = true;
    });
    // Most scrapes get the same bytes as the one before: those decode (and check) the same.
    let last: { gz: Buffer; body: string } | undefined;
    while (!done) {
      const r = await cache.respond('text', [], { gzip: true });
      if (last === undefined || !r.body.equals(last.gz)) last = { gz: Buffer.from(r.body), body: decode(r) };
      const body = last.body;
      expect(expected.has(body)).toBe(true);
      seen.add(body);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await publishing;
    // Scrapes were served during the publish, before the new body was swapped in.
    expect(seen.has(renderFamilies(oldFams, 'text'))).toBe(true);
    expect(cache.seriesCount()).toBe(20_000);
    expect(cache.lastRenderMs()).toBeGreaterThan(0);
  });
});
