/**
 * Every benchmark entry point (a file of bench/ that runs on its own) has an npm script, and
 * bench/README.md indexes it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A file that runs when started: a top-level await or call, or a run-when-main guard (by URL,
 * or by the script's name where the module may be bundled into a child).
 */
function isEntryPoint(text: string): boolean {
  return (
    /^(await |void |[a-z][\w$]*(\.[\w$]+)*\()/m.test(text) ||
    /^if \(process\.argv\[1\](?: === fileURLToPath|\?\.endsWith\()/m.test(text)
  );
}

describe('bench entry points', () => {
  const scripts = Object.values(
    (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
  );
  const readme = readFileSync('bench/README.md', 'utf8');
  // bench/<what it measures>/<file>.ts, as paths relative to bench/.
  const files = readdirSync('bench', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'));
  // Child processes another bench file forks are parts, not entry points.
  const forked = new Set(
    files.flatMap((f) =>
      [
        ...readFileSync(`bench/${f}`, 'utf8').matchAll(
          /(?:fork\w*|runChild)\(\s*(?:new URL\()?['"]\.\/([\w-]+\.ts)/g,
        ),
      ].map((m) => `${path.posix.dirname(f)}/${m[1]}`),
    ),
  );
  const entries = files
    .filter((f) => !/child|process/.test(f) && !forked.has(f))
    .filter((f) => isEntryPoint(readFileSync(`bench/${f}`, 'utf8')));

  it('keeps every bench file in a folder named for what it measures', () => {
    expect(files.filter((f) => !f.includes('/'))).toEqual([]);
  });

  it('resolves every path a bench file names relative to itself (children, results files)', () => {
    const missing = files.flatMap((f) =>
      [...readFileSync(`bench/${f}`, 'utf8').matchAll(/new URL\(\s*'(\.\.?\/[^']+)',\s*import\.meta\.url/g)]
        .map((m) => path.posix.join('bench', path.posix.dirname(f), m[1] ?? ''))
        .filter((p) => !existsSync(p)),
    );
    expect(missing).toEqual([]);
  });

  it('finds the entry points', () => {
    expect(entries).toEqual(
      expect.arrayContaining([
        'exporter/run.ts',
        'spc/spc-budget.ts',
        'soak/soak.ts',
        'spc/spc.ts',
        'spc/spc-false-alarms.ts',
        'spc/control.ts',
      ]),
    );
  });

  it.each(entries)('bench/%s has an npm script and a line in bench/README.md', (file) => {
    expect(scripts.some((s) => s.includes(`bench/${file}`))).toBe(true);
    expect(readme).toContain(`\`bench/${file}\``);
  });
});
