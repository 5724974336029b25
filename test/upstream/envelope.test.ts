import { describe, expect, it } from 'vitest';
import {
  decodeEnvelope,
  EnvelopeError,
  type EnvelopeLimits,
  INDEX_STEP_BYTES,
  MAX_ENVELOPE_BYTES,
  MAX_ITEM_BYTES,
  MAX_VALUES_PER_ITEM,
  SLICE_BYTES,
  SLICE_ITEMS,
  type StepRunner,
} from '../../src/upstream/envelope.ts';

/** Runs each step at once and counts them. */
function counting() {
  const counter = { steps: 0 };
  const run: StepRunner = async (step) => {
    counter.steps++;
    return step();
  };
  return { run, counter };
}

async function decode(text: string, limits: EnvelopeLimits = {}): Promise<unknown> {
  const d = await decodeEnvelope(Buffer.from(text), counting().run, limits);
  return d.kind === 'list' ? { list: await d.items.all() } : { value: d.value };
}

async function failure(text: string, limits: EnvelopeLimits = {}): Promise<EnvelopeError> {
  const err = await decode(text, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EnvelopeError);
  return err as EnvelopeError;
}

describe('decodeEnvelope', () => {
  it.each([
    ['{"data":[1,2,3],"message":"ok"}', { list: [1, 2, 3] }],
    [
      ' { "message" : "ok" , "data" : [ {"a":"]}\\""} , [1,[2]] , "x\\"y" , null, -1.5e3, true ] } \n',
      { list: [{ a: ']}"' }, [1, [2]], 'x"y', null, -1500, true] },
    ],
    ['{"data":[]}', { list: [] }],
    ['{"data":[ ]}', { list: [] }],
    ['{"data":{"unique_units":1}}', { value: { unique_units: 1 } }],
    ['{"meta":{"x":[1,"}"]},"data":"s","message":"m"}', { value: 's' }],
    ['{"\\u0064ata":[5]}', { list: [5] }],
    ['{"data":["\\u00e9t\u00e9","\\\\"]}', { list: ['\u00e9t\u00e9', '\\'] }],
  ])('reads %s as JSON.parse would', async (text, want) => {
    expect(await decode(text)).toEqual(want);
    const parsed = JSON.parse(text) as { data: unknown };
    expect(Array.isArray(parsed.data) ? { list: parsed.data } : { value: parsed.data }).toEqual(want);
  });

  it.each([
    '',
    '[1]',
    '{}',
    '{"data":[1,,2]}',
    '{"data":[1 2]}',
    '{"data":[1,]}',
    '{"data":[{"a":1]}]}',
    '{"data":[1]}x',
    '{"data":[1]',
    '{"data":[1],}',
    '{"data":[tru]}',
    '{"data":["open]}',
    '{"data":[1],"data":[2]}',
    '{"data":[1],"message":5}',
    '{"data":{"a":}}',
    '{"data":[1] "message":"x"}',
    '{data:[1]}',
  ])('refuses %j as invalid, as JSON.parse or the envelope check would', async (text) => {
    expect((await failure(text)).kind).toBe('invalid');
  });

  it('never quotes the body in its message (it may echo anything)', async () => {
    const err = await failure('{"data":[{"x":"Bearer secret-token"} oops]}');
    expect(err.message).not.toContain('secret');
    const slice = await failure('{"data":[{"x":"Bearer secret-token",}]}');
    expect(slice.message).not.toContain('secret');
  });

  it('refuses an answer with more items than the limit before parsing any', async () => {
    const text = JSON.stringify({ data: [{}, {}, {}, {}], message: 'ok' });
    expect(await decode(text, { maxItems: 4 })).toEqual({ list: [{}, {}, {}, {}] });
    const err = await failure(text, { maxItems: 3 });
    expect(err.kind).toBe('too_large');
    expect(err.message).toBe('answer holds more than 3 items; not decoded');
  });

  it('refuses one item, a single data value or the rest of the envelope over their limits', async () => {
    const long = 'x'.repeat(MAX_ITEM_BYTES);
    expect((await failure(`{"data":["${long}"]}`)).kind).toBe('too_large');
    expect((await failure(`{"data":{"a":"${long}"}}`)).kind).toBe('too_large');
    const pad = 'p'.repeat(MAX_ENVELOPE_BYTES);
    expect((await failure(`{"data":[1],"meta":{"pad":"${pad}"}}`)).kind).toBe('too_large');
    expect((await failure(`{"meta":"${pad}","data":[1]}`)).kind).toBe('too_large');
  });

  it('refuses an item or a single data value with more values than the limit, before parsing it', async () => {
    // `{}` elements count 2 each (the object and its comma): just under the limit, then just over.
    const empties = (n: number) => new Array<string>(n).fill('{}').join(',');
    const under = Math.floor((MAX_VALUES_PER_ITEM - 4) / 2);
    const fits = await decode(`{"data":[{"lines":[${empties(under)}]}]}`);
    expect((fits as { list: Array<{ lines: unknown[] }> }).list[0]?.lines).toHaveLength(under);
    const over = MAX_VALUES_PER_ITEM / 2 + 1;
    const { run, counter } = counting();
    const err = await decodeEnvelope(Buffer.from(`{"data":[1,{"lines":[${empties(over)}]}]}`), run).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnvelopeError);
    expect(err).toMatchObject({
      kind: 'too_large',
      message: `one item of data holds more than ${MAX_VALUES_PER_ITEM} values`,
    });
    // Refused while indexing: one step, nothing parsed.
    expect(counter.steps).toBe(1);
    const single = await failure(`{"data":{"unique_units":[${empties(over)}]}}`);
    expect(single.message).toBe(`data holds more than ${MAX_VALUES_PER_ITEM} values`);
    // Commas and brackets inside strings are text, not values.
    const text = ',{['.repeat(MAX_VALUES_PER_ITEM);
    expect(await decode(`{"data":[{"name":"${text}"}]}`)).toEqual({ list: [{ name: text }] });
  });

  it('indexes a large body in steps of about a megabyte and parses nothing of an answer it refuses', async () => {
    const items = Array.from({ length: 50_000 }, (_, i) => ({ i, pad: 'y'.repeat(60) }));
    const bytes = Buffer.from(JSON.stringify({ data: items, message: 'ok' }));
    const { run, counter } = counting();
    await expect(decodeEnvelope(bytes, run, { maxItems: 49_999 })).rejects.toMatchObject({
      kind: 'too_large',
    });
    // Each index step stops within a megabyte (and the item it is in): never the whole body at once.
    expect(counter.steps).toBeGreaterThanOrEqual(Math.floor((bytes.length - 100) / INDEX_STEP_BYTES));
    expect(counter.steps).toBeLessThanOrEqual(Math.ceil(bytes.length / INDEX_STEP_BYTES) + 1);
  });

  it('hands the items over in bounded slices, each in a step of its own', async () => {
    const small = Buffer.from(JSON.stringify({ data: Array.from({ length: 5000 }, (_, i) => i) }));
    const { run, counter } = counting();
    const d = await decodeEnvelope(small, run);
    if (d.kind !== 'list') throw new Error('want a list');
    expect(d.items.count).toBe(5000);
    const before = counter.steps;
    const sizes: number[] = [];
    await d.items.forEachSlice((items) => sizes.push(items.length));
    expect(sizes).toEqual([SLICE_ITEMS, SLICE_ITEMS, 1000]);
    expect(counter.steps - before).toBe(3);

    const wide = 'w'.repeat(1000);
    const big = Buffer.from(JSON.stringify({ data: Array.from({ length: 1000 }, () => wide) }));
    const e = await decodeEnvelope(big, run);
    if (e.kind !== 'list') throw new Error('want a list');
    const bySize: number[] = [];
    await e.items.forEachSlice((items) => bySize.push(items.length));
    expect(Math.max(...bySize)).toBeLessThanOrEqual(Math.ceil(SLICE_BYTES / 1003));
    expect(bySize.reduce((a, b) => a + b, 0)).toBe(1000);
  });
});
