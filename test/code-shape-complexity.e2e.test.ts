/**
 * The cognitive-complexity budget (biome.json: `noExcessiveCognitiveComplexity`, at most 15 per
 * function of src/, scripts/ and grafana/) started with per-file ceilings for the files over it.
 * This test keeps that list shrinking: each ceiling is the file's most complex function today, so
 * a change that simplifies it must lower or drop the ceiling. It runs Biome in a child process,
 * hence e2e.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const RULE = 'complexity/noExcessiveCognitiveComplexity';
const BUDGET = 15;
const PRODUCTION = ['src', 'scripts', 'grafana/src', 'grafana/build.ts'];

interface RuleSetting {
  level: string;
  options?: { maxAllowedComplexity?: number };
}
interface Override {
  includes: string[];
  linter?: { rules?: { complexity?: { noExcessiveCognitiveComplexity?: RuleSetting | string } } };
}
interface BiomeConfig {
  linter: { rules: { complexity: { noExcessiveCognitiveComplexity: RuleSetting } } };
  overrides?: Override[];
}

const config = JSON.parse(readFileSync('biome.json', 'utf8')) as BiomeConfig;
const work = mkdtempSync(path.join(tmpdir(), 'code-shape-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Per file, the complexity of its most complex function over `max`, as Biome measures it. */
function complexityOver(max: number, targets: string[]): Map<string, number> {
  const dir = mkdtempSync(path.join(work, 'config-'));
  const probe: Record<string, unknown> = {
    linter: {
      enabled: true,
      rules: {
        complexity: {
          [RULE.split('/')[1] as string]: { level: 'error', options: { maxAllowedComplexity: max } },
        },
      },
    },
  };
  writeFileSync(path.join(dir, 'biome.json'), JSON.stringify(probe));
  let out: string;
  try {
    out = execFileSync(
      'node_modules/.bin/biome',
      [
        'lint',
        `--config-path=${dir}`,
        `--only=${RULE}`,
        '--reporter=json',
        '--max-diagnostics=none',
        ...targets,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
  } catch (e) {
    out = (e as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as { diagnostics: { message: string; location: { path: string } }[] };
  const worst = new Map<string, number>();
  for (const d of report.diagnostics) {
    const m = /complexity of (\d+)/.exec(d.message);
    if (!m) continue;
    const file = d.location.path;
    worst.set(file, Math.max(Number(m[1]), worst.get(file) ?? 0));
  }
  return worst;
}

/** The per-file ceilings of biome.json: file → maxAllowedComplexity. */
function ceilings(): Map<string, number> {
  const found = new Map<string, number>();
  for (const o of config.overrides ?? []) {
    const setting = o.linter?.rules?.complexity?.noExcessiveCognitiveComplexity;
    const max = typeof setting === 'object' ? setting.options?.maxAllowedComplexity : undefined;
    if (max === undefined) continue;
    for (const file of o.includes) found.set(file, max);
  }
  return found;
}

describe('cognitive-complexity budget', () => {
  it(`is ${BUDGET} for every file`, () => {
    const rule = config.linter.rules.complexity.noExcessiveCognitiveComplexity;
    expect(rule).toEqual({ level: 'error', options: { maxAllowedComplexity: BUDGET } });
  });

  it('has a ceiling only for files over the budget, each at its most complex function', () => {
    const measured = complexityOver(BUDGET, PRODUCTION);
    const listed = ceilings();
    const stale = [...listed].filter(([file, max]) => measured.get(file) !== max);
    expect(
      stale.map(([file, max]) => `${file}: ceiling ${max}, now ${measured.get(file) ?? `≤ ${BUDGET}`}`),
    ).toEqual([]);
  });

  it('the measure can fail', () => {
    const dir = path.join(work, 'probe');
    mkdirSync(dir);
    const nested = (depth: number): string =>
      depth === 0 ? 'n += 1;' : `for (const x of xs) { if (x > ${depth}) { ${nested(depth - 1)} } }`;
    const file = path.join(dir, 'deep.ts');
    writeFileSync(file, `export function deep(xs: number[]): number { let n = 0; ${nested(4)} return n; }\n`);
    const measured = complexityOver(BUDGET, [file]);
    expect([...measured.values()][0]).toBeGreaterThan(BUDGET);
  });
});
