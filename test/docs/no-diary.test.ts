/**
 * The code and the docs say what is and why, never when or after which ticket: no issue numbers,
 * no dated measurements, no "session", no "was 42.3"-style history in src/, docs/, bench/, the
 * top-level guides, the deployment examples, the rules, the dashboards and the scripts, nor in
 * any file name. History lives in git and in CHANGELOG.md (exempt: dates belong there); current
 * figures live in the generated bench/results/ and bench/RESULTS.md (exempt: they carry their
 * run's date). A comment that needs a number names the bench that measures it.
 *
 * Only prose is read: comments in code (so `new Session()` or a timestamp in a fixture value is
 * not a hit), Markdown outside code blocks, YAML and shell comments. Dates inside inline code
 * (an example value, `2025-03-01T00:00:00Z`) and timestamps are values, not diary entries.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src', 'docs', 'bench', 'deploy', 'prometheus', 'grafana', 'scripts'];
const TOP_FILES = [
  'README.md',
  'CONTRIBUTING.md',
  'config.example.yaml',
  'vitest.config.ts',
  'knip.config.ts',
];
/** Generated with their run's date: the results of the benches. */
const EXEMPT = [/^bench\/results\//, /^bench\/RESULTS\.md$/];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.bench-build', '.vitest-cache']);
const TEXT = /\.(ts|mts|mjs|js|md|ya?ml|json|sh|service|socket)$/;

/** Every file under `dir`, as a path relative to the repository's root. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP_DIRS.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Keeps the characters `keep` selects and blanks the rest, newlines kept, so lines still count. */
function only(text: string, parts: RegExp): string {
  const out = text.replace(/[^\n]/g, ' ').split('');
  for (const m of text.matchAll(parts)) {
    for (let i = 0; i < m[0].length; i++) out[m.index + i] = text[m.index + i]!;
  }
  return out.join('');
}

/** Blanks the characters `parts` selects, newlines kept. */
function without(text: string, parts: RegExp): string {
  return text.replace(parts, (m) => m.replace(/[^\n]/g, ' '));
}

/** The prose of a file: comments of code and configuration, Markdown outside code blocks. */
function prose(path: string, text: string): string {
  if (/\.(ts|mts|mjs|js)$/.test(path)) return only(text, /\/\*[\s\S]*?\*\/|(?<![:\\/])\/\/[^\n]*/g);
  if (/\.(ya?ml|sh|service|socket)$/.test(path)) return only(text, /(?<=^|\s)#[^\n]*/gm);
  if (path.endsWith('.md')) return without(text, /^```[\s\S]*?^```/gm);
  return text;
}

interface Rule {
  readonly what: string;
  readonly pattern: RegExp;
  /** Inline code (`...`) is blanked first: a date there is an example value. */
  readonly outsideInlineCode?: boolean;
  /** Code is read too, not only comments: `issue29Targets`, a date in a report's string. */
  readonly inCode?: boolean;
}

const RULES: readonly Rule[] = [
  {
    what: 'an issue number',
    pattern: /\bissues?[ _-]?#?\d+|\bissues \d+(?:[ ,]+(?:and |or )?\d+)*/gi,
    inCode: true,
  },
  { what: 'a ticket reference', pattern: /(?<=^|[\s(,])#\d{1,6}\b(?![\w-])/gm },
  { what: 'a date', pattern: /\b20\d\d-[01]\d-[0-3]\d\b(?!T\d)/g, outsideInlineCode: true, inCode: true },
  { what: '"session"', pattern: /\bsessions?\b/g },
  {
    what: 'history of a figure',
    pattern: /\(was [~≈]?\d|\bwas [\d,.]+ (?:before|until)\b|\bscratch runs?\b|\b(?:down|up) from \d/gi,
  },
];

/** `file:line: what: text` for every hit of every rule in one file. */
function diaryHits(path: string, text: string): string[] {
  const hits: string[] = [];
  const base = prose(path, text);
  const code = /\.(ts|mts|mjs|js)$/.test(path);
  for (const rule of RULES) {
    const read = rule.inCode && code ? text : base;
    const scanned = rule.outsideInlineCode && !code ? without(read, /`[^`\n]*`/g) : read;
    for (const m of scanned.matchAll(rule.pattern)) {
      const line = scanned.slice(0, m.index).split('\n').length;
      hits.push(`${path}:${line}: ${rule.what}: ${m[0].trim()}`);
    }
  }
  return hits;
}

/** A file name that carries an issue number, such as `bench/exporter/issue29.ts`. */
const nameHit = (path: string) => /issues?[_-]?\d+/i.test(path.split('/').pop()!);

function scannedFiles(): string[] {
  return [...ROOTS.flatMap(walk), ...TOP_FILES]
    .filter((p) => TEXT.test(p))
    .filter((p) => !EXEMPT.some((e) => e.test(p)));
}

describe('no diary in the code and the docs', () => {
  it('finds what a diary writes, and leaves values and code alone', () => {
    const md = [
      'Runs of 2026-11-26 (issues 29, 30): 15.2 a day (was 42.3), see #29.',
      'A time such as `2026-03-01` or 2026-03-01T00:00:00Z is a value.',
      '```',
      'issue 7 in a code block',
      '```',
    ].join('\n');
    expect(diaryHits('docs/x.md', md).map((h) => h.split(': ')[1])).toEqual([
      'an issue number',
      'a ticket reference',
      'a date',
      'history of a figure',
    ]);
    const ts = [
      "const session = new Session(); // why: see bench/records (issue 29's target)",
      "const url = 'http://host/#1'; /* 2026-11-27, a second session */",
    ].join('\n');
    expect(diaryHits('src/x.ts', ts)).toEqual([
      'src/x.ts:1: an issue number: issue 29',
      'src/x.ts:2: a date: 2026-11-27',
      'src/x.ts:2: "session": session',
    ]);
    expect(diaryHits('deploy/x.yaml', 'key: 1 # see prometheus-operator #8102\n')).toHaveLength(1);
    expect(nameHit('bench/exporter/issue29.ts')).toBe(true);
    expect(nameHit('bench/exporter/targets.ts')).toBe(false);
  });

  it('scans the files it should', () => {
    const files = scannedFiles();
    expect(files).toContain('README.md');
    expect(files).toContain('src/cli.ts');
    expect(files).toContain('prometheus/rules/station-exporter.rules.yml');
    expect(files.some((f) => f.startsWith('bench/results/'))).toBe(false);
    expect(files).not.toContain('CHANGELOG.md');
  });

  it('has no issue number, date, session or history in prose or file names', () => {
    const hits = scannedFiles().flatMap((p) => diaryHits(p, readFileSync(p, 'utf8')));
    const names = [...ROOTS.flatMap(walk), ...walk('test')].filter(nameHit).map((p) => `${p}: file name`);
    expect([...names, ...hits].join('\n')).toBe('');
  });
});
