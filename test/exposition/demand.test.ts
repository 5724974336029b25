/**
 * The cache keeps only the forms scrapers ask for: protobuf rendered on the first protobuf scrape
 * and kept while protobuf scrapes come, a format's
 * plain bytes while plain scrapes of it come. The bytes served are the same either way.
 */
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Demand, RecentAsks } from '../../src/exposition/demand.ts';
import { type Family, LabelSet } from '../../src/exposition/model.ts';
import { PROTOBUF_CONTENT_TYPE, renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { renderFamilies } from '../helpers/render.ts';
import { largeFamilies, representative } from './families.ts';

function gauge(name: string, value: number): Family {
  return {
    desc: { name, kind: 'gauge', help: `${name} help` },
    samples: [{ labels: LabelSet.EMPTY, value }],
  };
}

const PARTS = largeFamilies(50, 2);
const TAIL = [gauge('tail', 1)];

/**
 * The monotonic clock, moved by the test. Each reading adds a nanosecond, so that the renders'
 * measured times stay above 0; a millisecond is a million readings.
 */
let now = 0;
beforeEach(() => {
  now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 1e-6));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A cache that renders protobuf when asked, as every cache does. */
async function lazyCache() {
  const cache = new ExpositionCache();
  await cache.publish('a', PARTS);
  await cache.publish('b', representative);
  return {
    cache,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The eager render of the same parts and tail: protobuf asked for before the publishes. */
async function eagerProtobuf(): Promise<Buffer> {
  const eager = new ExpositionCache();
  await eager.respond('protobuf', []);
  await eager.publish('a', PARTS);
  await eager.publish('b', representative);
  return (await eager.respond('protobuf', TAIL)).body;
}

describe('Demand', () => {
  it('keeps a form for the next publishes of each part after an ask, also of a part not yet published', () => {
    const d = new Demand();
    const six = (part: string) => Array.from({ length: 6 }, () => d.takePublish(part));
    expect(d.takePublish('a')).toBe(false);
    d.ask();
    expect(six('a')).toEqual([true, true, true, true, true, false]);
    expect(six('new')).toEqual([true, true, true, true, true, false]);
    d.ask();
    expect(d.takePublish('a')).toBe(true);
  });
});

describe('RecentAsks', () => {
  it('is active for three times the longest recent gap between asks', () => {
    const asks = new RecentAsks();
    expect(asks.active()).toBe(false);
    asks.ask();
    // One ask: Prometheus's default interval (1 min) is assumed.
    expect(asks.idleMs()).toBe(180_000);
    now = 15_000;
    asks.ask();
    now = 16_000;
    asks.ask(); // a second scraper, a second later: the interval is still 15 s
    expect(asks.idleMs()).toBeCloseTo(45_000, 3);
    now = 16_000 + 45_000 - 0.001;
    expect(asks.active()).toBe(true);
    now += 0.002;
    expect(asks.active()).toBe(false);
  });
});

describe('ExpositionCache: protobuf when asked', () => {
  it('does not render protobuf on a publish without protobuf demand', async () => {
    const { cache } = await lazyCache();
    expect(cache.heldBytes().protobuf).toBeUndefined();
    expect(cache.lastRenderMsByFormat().protobuf).toBe(0);
  });

  it('answers a protobuf scrape after a long text-only time with the bytes of the eager render', async () => {
    const { cache, advance } = await lazyCache();
    for (let i = 0; i < 20; i++) {
      advance(60_000);
      await cache.respond('text', TAIL, { gzip: true });
      await cache.publish('a', PARTS);
      await cache.publish('b', representative);
    }
    expect(cache.heldBytes().protobuf).toBeUndefined();
    const expected = await eagerProtobuf();
    expect(expected).toEqual(renderProtobufToBuffer([...PARTS, ...representative, ...TAIL]));
    const plain = await cache.respond('protobuf', cache.tail('protobuf', TAIL));
    expect(plain.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    expect(plain.body).toEqual(expected);
    const gzipped = await cache.respond('protobuf', TAIL, { gzip: true });
    expect(gzipped.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    expect(zlib.gunzipSync(gzipped.body)).toEqual(expected);
  });

  it('lets concurrent first protobuf scrapes wait for one render', async () => {
    const { cache } = await lazyCache();
    const [x, y] = await Promise.all([
      cache.respond('protobuf', TAIL, { gzip: true }),
      cache.respond('protobuf', TAIL, { gzip: true }),
    ]);
    expect(zlib.gunzipSync(x.body)).toEqual(await eagerProtobuf());
    expect(y.body).toEqual(x.body);
  });

  it('renders protobuf on publishes while scrapes ask, and drops it after three scrape intervals without', async () => {
    const { cache, advance } = await lazyCache();
    // Scrapes every 30 s: publishes render protobuf, and the bodies follow the new data.
    for (let i = 0; i < 3; i++) {
      await cache.respond('protobuf', TAIL, { gzip: true });
      advance(30_000);
      await cache.publish('a', PARTS);
      expect(cache.heldBytes().protobuf?.deflated).toBeGreaterThan(0);
      expect(cache.lastRenderMsByFormat().protobuf).toBeGreaterThan(0);
    }
    const newer = largeFamilies(40, 3);
    await cache.publish('b', newer);
    const pb = await cache.respond('protobuf', TAIL);
    expect(pb.body).toEqual(renderProtobufToBuffer([...PARTS, ...newer, ...TAIL]));
    // The scraper stops. Within 3 x 30 s publishes still render protobuf; after it, the first
    // publish drops every part's protobuf body (also of the part not published).
    advance(90_000 - 1);
    await cache.publish('a', PARTS);
    expect(cache.heldBytes().protobuf).toBeDefined();
    advance(2);
    await cache.publish('a', PARTS);
    expect(cache.heldBytes().protobuf).toBeUndefined();
    expect(cache.lastRenderMsByFormat().protobuf).toBe(0);
    // Text scrapes do not bring it back; a protobuf scrape does, with the current data.
    await cache.respond('text', TAIL, { gzip: true });
    expect(cache.heldBytes().protobuf).toBeUndefined();
    const again = await cache.respond('protobuf', TAIL);
    expect(again.body).toEqual(renderProtobufToBuffer([...PARTS, ...newer, ...TAIL]));
  });
});

describe('ExpositionCache: plain bytes when asked', () => {
  it('keeps only the deflate until a plain scrape, which gets the same bytes', async () => {
    const { cache } = await lazyCache();
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
