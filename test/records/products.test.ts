import { describe, expect, it } from 'vitest';
import { productLabeller } from '../../src/config/products-schema.ts';
import { SerialProducts, serialProductKey } from '../../src/records/products.ts';

/** A serial's product, looked up as the measurements job does. */
const productOf = (index: SerialProducts, serial: string) => index.getByKey(serialProductKey(serial));

describe('serial products', () => {
  it('maps unit types through the allow-list: others to other, none to unknown', () => {
    const label = productLabeller(['A', 'B']);
    expect([label('A'), label('B'), label('C'), label(null), label('')]).toEqual([
      'A',
      'B',
      'other',
      'unknown',
      'unknown',
    ]);
  });

  it('knows a serial once noted, the latest note winning', () => {
    const index = new SerialProducts();
    expect(productOf(index, 'S1')).toBeUndefined();
    index.set('S1', 'A');
    index.set('S2', 'B');
    index.set('S1', 'other');
    expect([productOf(index, 'S1'), productOf(index, 'S2'), productOf(index, 'S3')]).toEqual([
      'other',
      'B',
      undefined,
    ]);
    expect(index.size).toBe(2);
  });

  it('keeps the newest one to two generations of serials, in bounded bytes', () => {
    const perGeneration = 1000;
    const index = new SerialProducts({ perGeneration });
    for (let i = 0; i < 5000; i++) index.set(`U${i}`, i % 2 === 0 ? 'A' : 'B');
    // 5,000 notes of 1,000 per generation: the last full generation and the current one.
    expect(index.size).toBeGreaterThanOrEqual(perGeneration);
    expect(index.size).toBeLessThanOrEqual(2 * perGeneration);
    expect(productOf(index, 'U4999')).toBe('B');
    expect(productOf(index, 'U4000')).toBe('A');
    expect(productOf(index, 'U10')).toBeUndefined();
    // Two tables at a load of at most one half, 9 bytes a slot, rounded up to powers of two.
    expect(index.bytes).toBeLessThanOrEqual(2 * 9 * 2048 * 2);
    // Every serial still held is known with its own product.
    let wrong = 0;
    for (let i = 3000; i < 5000; i++) if (productOf(index, `U${i}`) !== (i % 2 === 0 ? 'A' : 'B')) wrong++;
    expect(wrong).toBe(0);
  });

  it('starts over on restart, coverage included', () => {
    const index = new SerialProducts();
    index.set('S1', 'A');
    index.cover({ from: 0, to: 10 });
    index.restart();
    expect(productOf(index, 'S1')).toBeUndefined();
    expect(index.coverage).toBeUndefined();
  });
});
