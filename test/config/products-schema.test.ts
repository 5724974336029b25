/** The `products` section: defaults, the allow-list's checks, and the errors across sections, by path. */
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.ts';

const UPSTREAM = { base_url: 'http://fake', token: 't' };
const load = (raw: Record<string, unknown>) =>
  configFromObject({ upstream: UPSTREAM, ...raw }, { env: {}, baseDir: '/' });

/** The error text of a config that must not load. */
function errorOf(raw: Record<string, unknown>): string {
  try {
    load(raw);
  } catch (e) {
    return String(e);
  }
  throw new Error('the config loaded');
}

describe('products config', () => {
  it('is off by default, with no products listed', () => {
    const c = load({});
    expect(c.products).toEqual({ label: false, allow: [] });
    expect(c.measurements.control.names).toEqual([]);
  });

  it('takes a label and an allow-list, and by_product per charted name', () => {
    const c = load({
      products: { label: true, allow: ['A', 'B'] },
      measurements: {
        names: ['vbat', 'vcc'],
        control: { names: [{ name: 'vbat', by_product: true }, 'vcc'] },
      },
    });
    expect(c.products).toEqual({ label: true, allow: ['A', 'B'] });
    expect(c.measurements.control.names.map((n) => n.byProduct)).toEqual([true, false]);
  });

  it('names the path of each error', () => {
    expect(errorOf({ products: { label: true } })).toMatch(
      /products\.allow.*at least one product for products\.label/,
    );
    expect(
      errorOf({ measurements: { names: ['v'], control: { names: [{ name: 'v', by_product: true }] } } }),
    ).toMatch(/products\.allow.*measurements\.control\.names\[0\]\.by_product/);
    expect(
      errorOf({
        products: { allow: ['A'] },
        units: { enabled: false },
        measurements: { names: ['v'], control: { names: ['w', { name: 'v', by_product: true }] } },
      }),
    ).toMatch(/measurements\.control\.names\[1\]\.by_product.*units collector/);
    expect(errorOf({ products: { allow: ['A', 'A'] } })).toMatch(
      /products\.allow\[1\].*duplicate product "A"/,
    );
    expect(errorOf({ products: { allow: ['other'] } })).toMatch(/products\.allow\[0\]/);
    expect(errorOf({ products: { allow: ['unknown'] } })).toMatch(/products\.allow\[0\]/);
    expect(errorOf({ products: { allow: [''] } })).toMatch(/products\.allow\[0\]/);
    expect(errorOf({ products: { labels: true } })).toMatch(/products.*labels/);
  });
});
