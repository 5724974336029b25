import { describe, expect, it } from 'vitest';
import { LabelSet } from '../../src/exposition/model.ts';

describe('LabelSet', () => {
  it('escapes values once and keeps names and pairs in the order given', () => {
    const station = LabelSet.of({ site: 'Plant "A"', line: 'L\\1' }).with('station', 'x\ny');
    expect(station.text).toBe('site="Plant \\"A\\"",line="L\\\\1",station="x\\ny"');
    expect(station.names).toEqual(['site', 'line', 'station']);
  });

  it('appends another set, names included, without changing either', () => {
    const base = LabelSet.of({ a: '1' });
    const extra = LabelSet.of({ b: '2' }).with('c', '3');
    const both = base.concat(extra).with('d', '4');
    expect(both.text).toBe('a="1",b="2",c="3",d="4"');
    expect(both.names).toEqual(['a', 'b', 'c', 'd']);
    expect(base.names).toEqual(['a']);
    expect(extra.names).toEqual(['b', 'c']);
    expect(LabelSet.EMPTY.concat(extra)).toBe(extra);
    expect(LabelSet.EMPTY.names).toEqual([]);
  });
});
