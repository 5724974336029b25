import { describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../../src/util/suggest.ts';

describe('suggestions', () => {
  it('measures edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('once', 'once')).toBe(0);
  });
  it('suggests the nearest within two edits, case-insensitively', () => {
    expect(nearest('chek-config', ['check-config', 'once'])).toBe('check-config');
    expect(nearest('ONSE', ['check-config', 'once'])).toBe('once');
    expect(nearest('frobnicate', ['check-config', 'once'])).toBeUndefined();
  });
});
