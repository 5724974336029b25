/**
 * Every benchmark entry point (a file of bench/ that runs on its own) has an npm script, and
 * bench/README.md indexes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** A file that runs when started: a top-level await or call, or a run-when-main guard. */
function isEntryPoint(text: string): boolean {
  return (
    /^(await |void |[a-z][\w$]*(\.[\w$]+)*\()/m.test(text) ||
    /^if \(process\.argv\[1\] === fileURLToPath/m.test(text)
  );
}

describe('bench entry points', () => {
  const scripts = Object.values(
    (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
  );
  const readme = readFileSync('bench/README.md', 'utf8');
  const files = readdirSync('bench').filter((f) => f.endsWith('.ts'));
  // Child processes another bench file forks are parts, not entry points.
  const forked = new Set(
    files.flatMap((f) =>
      [...readFileSync(`bench/${f}`, 'utf8').matchAll(/fork\w*\(\s*(?:new URL\()?['"]\.\/([\w-]+\.ts)/g)].map(
        (m) => m[1],
      ),
    ),
  );
  const entries = files
    .filter((f) => !/child|process/.test(f) && !forked.has(f))
    .filter((f) => isEntryPoint(readFileSync(`bench/${f}`, 'utf8')));

  it('finds the entry points', () => {
    expect(entries).toEqual(
      expect.arrayContaining(['run.ts', 'spc-budget.ts', 'soak.ts', 'spc.ts', 'spc-false-alarms.ts']),
    );
  });

  it.each(entries)('bench/%s has an npm script and a line in bench/README.md', (file) => {
    expect(scripts.some((s) => s.includes(`bench/${file}`))).toBe(true);
    expect(readme).toContain(`\`bench/${file}\``);
  });
});
