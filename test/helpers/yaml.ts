/**
 * A "billion laughs" YAML alias bomb, as the lines of a mapping: each level repeats the one
 * before it ten times, 10^9 strings once expanded. Nest it under a key:
 * `bomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}`.
 */
export const ALIAS_BOMB_LINES: readonly string[] = [
  'a0: &a0 ["lol"]',
  ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
];
