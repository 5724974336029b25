// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references in config text, not templates.
import { describe, expect, it } from 'vitest';
import { expandEnv } from '../../src/config/env.ts';

describe('expandEnv', () => {
  it('expands variables in strings at any depth, leaving other values alone', () => {
    const raw = { a: 'x-${A}-y', list: ['${B}', 3, true, null], nested: { c: '${A}${B}' } };
    expect(expandEnv(raw, { A: 'one', B: 'two' })).toEqual({
      value: { a: 'x-one-y', list: ['two', 3, true, null], nested: { c: 'onetwo' } },
      issues: [],
    });
  });

  it('turns $$ into $ and keeps a lone $', () => {
    expect(expandEnv('cost $$5 and $HOME and $$${A}', { A: 'a', HOME: '/root' }).value).toBe(
      'cost $5 and $HOME and $a',
    );
  });

  it('does not expand a value a second time', () => {
    expect(expandEnv('${A}', { A: '${B}', B: 'nope' }).value).toBe('${B}');
  });

  it('accepts a variable set to the empty string', () => {
    expect(expandEnv('[${EMPTY}]', { EMPTY: '' })).toEqual({ value: '[]', issues: [] });
  });

  it('reports each problem at its path', () => {
    const { issues } = expandEnv({ up: { token: '${TOKEN}' }, list: ['ok', '${1BAD}', 'open ${A'] }, {});
    expect(issues).toEqual([
      { path: ['up', 'token'], message: 'environment variable TOKEN is not set' },
      { path: ['list', 1], message: 'invalid environment variable name "1BAD"' },
      { path: ['list', 2], message: 'unterminated "${" (write "$$" for a literal "$")' },
    ]);
  });
});
