import { describe, expect, it } from 'vitest';
import { ProductGate, type ReleasedPoint } from '../../../src/collectors/measurements/product-gate.ts';
import { SerialProducts } from '../../../src/records/products.ts';

const MIN = 60_000;
const series = { stationId: 'a'.repeat(24), name: 'vbat', slot: null };

function gate(maxPending?: number) {
  const index = new SerialProducts();
  const g = new ProductGate(index, maxPending === undefined ? {} : { maxPending });
  const released: ReleasedPoint[] = [];
  const release = (nowMs: number) => g.release(nowMs, (p) => released.push(p));
  return { index, g, released, release };
}

describe('product gate', () => {
  it('releases points in time order once the units job has read up to them', () => {
    const { index, g, released, release } = gate();
    for (const t of [5, 1, 3, 9]) {
      index.set(`S${t}`, t < 4 ? 'A' : 'B');
      g.offer(series, { time: t * MIN, value: t, serial: `S${t}`, key: t });
    }
    release(10 * MIN);
    expect(released).toEqual([]);
    index.cover({ from: 0, to: 5 * MIN });
    release(10 * MIN);
    expect(released.map((p) => [p.time / MIN, p.product])).toEqual([
      [1, 'A'],
      [3, 'A'],
      [5, 'B'],
    ]);
    expect(g.size).toBe(1);
  });

  it('skips and counts points of unknown units, too old or beyond the cap', () => {
    const { index, g, released, release } = gate(16);
    g.offer(series, { time: MIN, value: 1, serial: 'nobody', key: 1 });
    index.cover({ from: 0, to: MIN });
    release(2 * MIN);
    expect(g.takeSkipped()).toEqual(new Map([['product_unknown', 1]]));
    // Old when it comes (history) is no wait; waiting past the longest wait (an hour) is.
    g.offer(series, { time: 2 * MIN, value: 1, serial: 'late', key: 1 });
    release(2 * MIN + 61 * MIN);
    expect(g.takeSkipped()).toEqual(new Map());
    release(2 * MIN + 122 * MIN);
    expect(g.takeSkipped()).toEqual(new Map([['product_wait_exceeded', 1]]));
    // 20 points into room for 16: the oldest eighth goes at the first overflow (2), then 2 more.
    for (let i = 0; i < 20; i++)
      g.offer(series, { time: (100 + i) * MIN, value: i, serial: `x${i}`, key: 1 });
    expect(g.takeSkipped()).toEqual(new Map([['product_pending_full', 4]]));
    expect(g.size).toBe(16);
    expect(released).toEqual([]);
  });
});
