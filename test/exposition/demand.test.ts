/**
 * The cache keeps only the forms scrapers ask for: protobuf while protobuf scrapes come (the
 * wired exporter's `protobuf: 'when-asked'`), a format's plain bytes while plain scrapes of it
 * come. The bytes served are the same either way.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ExpositionCache, PROTOBUF_CONTENT_TYPE, TEXT_CONTENT_TYPE } from '../../src/exposition/cache.ts';
import { Demand } from '../../src/exposition/demand.ts';
import { type Family, LabelSet } from '../../src/exposition/model.ts';
import { renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { renderFamilies } from '../../src/exposition/render.ts';
import { largeFamilies, representative } from './families.ts';

function gauge(name: string, value: number): Family {
  return {
    desc: { name, kind: 'gauge', help: `${name} help` },
    samples: [{ labels: LabelSet.EMPTY, value }],
  };
}

const PARTS = largeFamilies(50, 2);
const TAIL = [gauge('tail', 1)];

/** A cache that renders protobuf when asked, keeping a form for 2 publishes after an ask. */
async function lazyCache(): Promise<ExpositionCache> {
  const cache = new ExpositionCache({ protobuf: 'when-asked', demandPublishes: 2 });
  await cache.publish('a', PARTS);
  await cache.publish('b', representative);
  return cache;
}

describe('Demand', () => {
  it('keeps a form for the next publishes of each part after an ask, also of a part not yet published', () => {
    const d = new Demand(2);
    expect(d.takePublish('a')).toBe(false);
    d.ask();
    expect([d.takePublish('a'), d.takePublish('a'), d.takePublish('a')]).toEqual([true, true, false]);
    expect([d.takePublish('new'), d.takePublish('new'), d.takePublish('new')]).toEqual([true, true, false]);
    d.ask();
    expect(d.takePublish('a')).toBe(true);
  });
});

describe('ExpositionCache: protobuf when asked', () => {
  it('does not render protobuf on a publish without protobuf demand', async () => {
    const cache = await lazyCache();
    expect(cache.heldBytes().protobuf).toBeUndefined();
    expect(cache.lastRenderMsByFormat().protobuf).toBe(0);
  });

  it('answers the first protobuf scrape in the text format, plain and gzipped', async () => {
    const cache = await lazyCache();
    const text = renderFamilies([...PARTS, ...representative, ...TAIL], 'text');
    const plain = await cache.respond('protobuf', cache.tail('protobuf', TAIL));
    expect(plain.contentType).toBe(TEXT_CONTENT_TYPE);
    expect(plain.body.toString('utf8')).toBe(text);
    const gzipped = await cache.respond('protobuf', TAIL, { gzip: true });
    expect(gzipped.contentType).toBe(TEXT_CONTENT_TYPE);
    expect(zlib.gunzipSync(gzipped.body).toString('utf8')).toBe(text);
  });

  it('serves protobuf once every part has been published since the ask, for the next N publishes', async () => {
    const cache = await lazyCache();
    await cache.respond('protobuf', TAIL, { gzip: true });
    await cache.publish('a', PARTS);
    // Part b has not been published since: no complete protobuf body yet.
    expect((await cache.respond('protobuf', TAIL)).contentType).toBe(TEXT_CONTENT_TYPE);
    await cache.publish('b', representative);
    const expected = renderProtobufToBuffer([...PARTS, ...representative, ...TAIL]);
    const pb = await cache.respond('protobuf', TAIL, { gzip: true });
    expect(pb.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    expect(zlib.gunzipSync(pb.body)).toEqual(expected);
    expect(cache.heldBytes().protobuf?.deflated).toBeGreaterThan(0);
    // That scrape asked again: two more publishes of each part keep protobuf, the third drops it.
    for (let i = 0; i < 2; i++) {
      await cache.publish('a', PARTS);
      await cache.publish('b', representative);
      expect(cache.heldBytes().protobuf).toBeDefined();
    }
    await cache.publish('a', PARTS);
    expect(cache.heldBytes().protobuf).toBeUndefined();
    expect((await cache.respond('protobuf', TAIL)).contentType).toBe(TEXT_CONTENT_TYPE);
  });

  it('renders protobuf on every publish by default', async () => {
    const cache = new ExpositionCache({ demandPublishes: 1 });
    for (let i = 0; i < 3; i++) await cache.publish('a', PARTS);
    expect(cache.heldBytes().protobuf).toBeDefined();
    expect((await cache.respond('protobuf', TAIL)).body).toEqual(renderProtobufToBuffer([...PARTS, ...TAIL]));
  });
});

describe('ExpositionCache: plain bytes when asked', () => {
  it('keeps only the deflate until a plain scrape, which gets the same bytes', async () => {
    const cache = await lazyCache();
    expect(cache.heldBytes().text).toEqual({ plain: 0, deflated: expect.any(Number) });
    const r = await cache.respond('text', TAIL);
    expect(r.body.toString('utf8')).toBe(renderFamilies([...PARTS, ...representative, ...TAIL], 'text'));
    // Inflated once for this snapshot; the next publishes keep the plain bytes.
    expect(cache.heldBytes().text?.plain).toBe(r.length - Buffer.from(renderFamilies(TAIL, 'text')).length);
    await cache.publish('a', PARTS);
    await cache.publish('b', representative);
    expect(cache.heldBytes().text?.plain).toBeGreaterThan(0);
    expect(cache.heldBytes().openmetrics?.plain).toBe(0);
  });
});
