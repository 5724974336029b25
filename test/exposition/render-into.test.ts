/**
 * The streaming render the cache uses: each step's bytes are handed over and then written over,
 * so a publish goes through a few blocks instead of leaving the whole body to the collector.
 */
import { describe, expect, it } from 'vitest';
import { renderFamiliesInto, renderFamiliesToBuffer } from '../../src/exposition/render.ts';
import { largeFamilies, representative } from './families.ts';

describe('renderFamiliesInto', () => {
  it('hands over the same bytes as the sync render, step by step, reusing its blocks', async () => {
    const families = [...representative, ...largeFamilies(2_000, 3)];
    for (const format of ['text', 'openmetrics'] as const) {
      const copies: Buffer[] = [];
      const blocks = new Set<ArrayBufferLike>();
      let steps = 0;
      const r = await renderFamiliesInto(families, format, {
        yieldEvery: 500,
        consume: async (chunks) => {
          steps++;
          for (const c of chunks) {
            blocks.add(c.buffer);
            copies.push(Buffer.from(c));
          }
        },
      });
      // equals, not toEqual: toEqual walks a Buffer byte by byte as an object.
      expect(Buffer.concat(copies).equals(renderFamiliesToBuffer(families, format))).toBe(true);
      expect(r.samples).toBe(families.reduce((n, f) => n + f.samples.length, 0));
      expect(steps).toBeGreaterThan(10);
      // Blocks are written again once consumed: far fewer blocks than steps.
      expect(blocks.size).toBeLessThan(steps / 2);
    }
  });

  it('hands over at most 5,000 samples per step by default, so that no step blocks the event loop for long', async () => {
    const families = largeFamilies(12_000, 1);
    const total = families.reduce((n, f) => n + f.samples.length, 0);
    expect(total).toBeGreaterThanOrEqual(12_000);
    let steps = 0;
    await renderFamiliesInto(families, 'text', {
      consume: async () => {
        steps++;
      },
    });
    expect(steps).toBeGreaterThanOrEqual(Math.ceil(total / 5_000));
  });
});
