import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Counter, Registry } from '../../src/exposition/client.ts';
import { createTailMemo } from '../../src/server/self-metrics-tail.ts';

function setup(maxAgeMs: number) {
  const registry = new Registry();
  const counter = new Counter({ name: 'scrapes_total', help: 'h', registers: [registry] });
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  const tailOf = createTailMemo({ cache: new ExpositionCache(), registry, maxAgeMs });
  return { counter, tailOf, advance: (ms: number) => (now += ms) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('self-metrics tail memo', () => {
  it('reuses the rendered tail within maxAgeMs, per format, then renders it again', async () => {
    const { counter, tailOf, advance } = setup(1000);
    counter.inc();
    const first = await tailOf('text');
    counter.inc();
    expect(await tailOf('text')).toBe(first);
    expect((await tailOf('openmetrics')).plain.toString()).toContain('scrapes_total 2');
    advance(1000);
    expect((await tailOf('text')).plain.toString()).toContain('scrapes_total 2');
    expect(first.plain.toString()).toContain('scrapes_total 1');
  });

  it('renders on every call with maxAgeMs 0', async () => {
    const { counter, tailOf } = setup(0);
    const a = await tailOf('text');
    counter.inc();
    expect(await tailOf('text')).not.toBe(a);
  });
});
