/**
 * The README's statements that the code decides stay true, as the generated references do: its
 * flags table against the command line's usage text and flag definitions (read from src/cli.ts
 * and src/app/commands/flags.ts as text, since importing the CLI would run it), its windows row against the config
 * schema, and the quick start's length.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { windowsSchema } from '../../src/config/windows-schema.ts';

const README = readFileSync('README.md', 'utf8');
const CLI = readFileSync('src/cli.ts', 'utf8');
const FLAGS = readFileSync('src/app/commands/flags.ts', 'utf8');

/** The template literal assigned to `const NAME = \`...\`;` in src/cli.ts. */
function constantText(name: string): string {
  const m = new RegExp(`const ${name} = \`([^\`]*)\`;`).exec(CLI);
  if (!m) throw new Error(`src/cli.ts has no constant ${name}`);
  return m[1]!;
}

/** The keys of the `RUN_FLAGS` object of src/app/commands/flags.ts: every flag the exporter's run accepts. */
function runFlags(): string[] {
  const body = /const RUN_FLAGS = \{([\s\S]*?)\n\} as const;/.exec(FLAGS)?.[1];
  if (body === undefined) throw new Error('src/app/commands/flags.ts has no RUN_FLAGS');
  return [...body.matchAll(/^\s+'?([\w.-]+)'?: \{/gm)].map((m) => m[1]!);
}

/** The rows of the README table whose header row starts with `| first |`. */
function tableRows(first: string): string[][] {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  if (start < 0) throw new Error(`README has no table starting with "| ${first} |"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** `--flag` names in a piece of text. */
const flagsIn = (text: string) => [...text.matchAll(/--([a-z][\w.-]*[a-z])/g)].map((m) => m[1]!);

/** Every `const` value of a `type` property in a JSON schema: the kinds of window. */
function windowKinds(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) windowKinds(n, out);
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    const type = (record.properties as Record<string, { const?: unknown }> | undefined)?.type?.const;
    if (typeof type === 'string') out.add(type);
    for (const value of Object.values(record)) windowKinds(value, out);
  }
  return out;
}

describe('README', () => {
  const usage = constantText('USAGE');
  const flagRows = tableRows('Flag');
  const documented = flagRows.map((r) => flagsIn(r[0]!)[0]!);

  it('reads the usage text and the flags', () => {
    expect(usage).toContain('Usage:');
    expect(runFlags()).toContain('web.listen-address');
    expect(documented).toContain('config.file');
    expect(flagsIn('`--a.b-c X` and --d')).toEqual(['a.b-c']);
  });

  it('documents every flag of the run command, and no other', () => {
    const accepted = runFlags().filter((f) => !['help', 'version', 'config'].includes(f));
    expect([...documented].sort()).toEqual([...accepted].sort());
    // `--config` is another name for `--config.file`, documented in its row.
    expect(flagRows.find((r) => r[0]!.startsWith('`--config.file'))?.[0]).toContain('`--config`');
  });

  it('documents only flags that --help shows, with the defaults --help shows', () => {
    const shown = new Set(flagsIn(usage));
    for (const flag of documented) expect(shown, `--${flag} in --help`).toContain(flag);
    // `[--web.idle-timeout 2m]`: the usage text shows a flag's default as its example value.
    for (const [, flag, value] of usage.matchAll(/\[--([\w.-]+) ([^\s\]|]+)\]/g)) {
      if (/^[A-Z]/.test(value!) || /^[a-z]\/[a-z]$/.test(value!)) continue; // a placeholder: FILE, i/n
      const row = flagRows.find((r) => flagsIn(r[0]!)[0] === flag);
      expect(row?.[1], `the README's default of --${flag}`).toContain(`\`${value}\``);
    }
  });

  it('names in the check-config row only flags check-config accepts', () => {
    const row = tableRows('Command').find((r) => r[0]!.includes('check-config'));
    const checkUsage = constantText('CHECK_CONFIG_USAGE');
    for (const flag of flagsIn(row![0]! + row![1]!)) {
      if (flag === 'help') continue;
      expect(checkUsage, `--${flag}`).toContain(`--${flag}`);
    }
    // The plan is printed only with plant counts or --discover: the row says so.
    expect(row![1]).toMatch(/--stations[\s\S]*--discover[\s\S]*request plan/);
  });

  it('names exactly the kinds of window the config schema has', () => {
    const kinds = windowKinds(z.toJSONSchema(windowsSchema, { io: 'input', unrepresentable: 'any' }));
    expect(kinds).toEqual(new Set(['rolling', 'shift', 'today', 'week']));
    const row = tableRows('Section').find((r) => r[0] === '`windows`')!;
    expect(row[1]).toContain('rolling');
    const named = [...row[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const durations = named.filter((n) => /^\d+[smhd]$/.test(n));
    const calendar = named.filter((n) => !durations.includes(n));
    expect(new Set(calendar)).toEqual(new Set([...kinds].filter((k) => k !== 'rolling')));
    expect(windowsSchema.safeParse(durations).success, durations.join(', ')).toBe(true);
    // "any length up to 7 days"
    expect(row[1]).toContain('up to 7 days');
    expect(windowsSchema.safeParse(['7d']).success).toBe(true);
    expect(windowsSchema.safeParse(['8d']).success).toBe(false);
  });

  it('keeps the quick start on one screen', () => {
    const before = README.slice(0, README.indexOf('\n## Command line'));
    expect(before.length).toBeGreaterThan(100);
    expect(before.split('\n').length).toBeLessThanOrEqual(40);
    expect(before).toContain('npm start');
    expect(before).toContain('npm test');
  });
});
