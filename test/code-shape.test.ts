/**
 * House style, read with the TypeScript compiler so that a violation names its file, line and
 * function:
 * - no boolean parameter beside others ("option objects over boolean arguments");
 * - no function of src/ longer than {@link MAX_FUNCTION_LINES} lines of code. Data tables (object
 *   and array literals with no function inside) do not count, nor blank and comment lines; a
 *   nested function counts toward the function around it, so a factory that is a class written as
 *   closures counts whole.
 * The cognitive-complexity budget is Biome's `noExcessiveCognitiveComplexity` (biome.json).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';

// Required, not imported: Node's ESM loader would first scan the 9 MB CommonJS bundle for
// module syntax, 0.1 s of CPU.
const ts: typeof TS = createRequire(import.meta.url)('typescript');

const MAX_FUNCTION_LINES = 60;

/**
 * Functions over {@link MAX_FUNCTION_LINES} when the budget was added (issue 32), as
 * `file name` with the length then measured: a ceiling each may not grow past. A shrinking list:
 * the test fails when an entry is back within the budget (remove it) or gone.
 */
const LONG_FUNCTIONS_LEFT = new Map<string, number>([['src/spc/rules.ts evaluateWindowAndNew', 82]]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const parsed = new Map<string, TS.SourceFile>();

/** The syntax tree of `file`, parsed once for all the checks (parsing src/ is most of their time). */
function parse(file: string): TS.SourceFile {
  let sf = parsed.get(file);
  if (sf === undefined) {
    sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(file, sf);
  }
  return sf;
}

type FunctionLike =
  | TS.FunctionDeclaration
  | TS.MethodDeclaration
  | TS.ArrowFunction
  | TS.FunctionExpression
  | TS.ConstructorDeclaration
  | TS.AccessorDeclaration;

/** The kinds {@link isFunctionLike} accepts, as ts.isFunctionDeclaration and the rest test them. */
const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

// A test of the kind, not seven calls of typescript's exports: each of those is a getter of the
// bundled module, and this runs for every node of src/, where those getters cost seconds.
function isFunctionLike(n: TS.Node): n is FunctionLike {
  return FUNCTION_KINDS.has(n.kind);
}

function nameOf(n: FunctionLike): string {
  if (n.name) return n.name.getText();
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const parent = n.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return '(anonymous)';
}

/** Lines of `node` that hold code: not blank, not only a comment. */
function codeLines(sf: TS.SourceFile, node: TS.Node): Set<number> {
  const lines = new Set<number>();
  const first = sf.getLineAndCharacterOfPosition(node.getStart()).line;
  const text = node.getText(sf).split('\n');
  text.forEach((line, i) => {
    const t = line.trim();
    if (t !== '' && !t.startsWith('//') && !t.startsWith('*') && !t.startsWith('/*')) lines.add(first + i);
  });
  return lines;
}

function containsFunction(n: TS.Node): boolean {
  return ts.forEachChild(n, (c) => isFunctionLike(c) || containsFunction(c)) === true;
}

/** Lines of code of a function body, less the lines of the data tables in it. */
function bodyLength(sf: TS.SourceFile, body: TS.Node): number {
  const lines = codeLines(sf, body);
  const dropTables = (n: TS.Node): void => {
    if ((ts.isObjectLiteralExpression(n) || ts.isArrayLiteralExpression(n)) && !containsFunction(n)) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      // The literal's first line holds the code that uses it, and stays.
      for (let l = start + 1; l <= end; l++) lines.delete(l);
      return;
    }
    ts.forEachChild(n, dropTables);
  };
  ts.forEachChild(body, dropTables);
  return lines.size;
}

interface Measured {
  key: string;
  at: string;
  lines: number;
}

/** Every function of `file` with a body, with its length. */
function functionLengths(file: string): Measured[] {
  const sf = parse(file);
  const found: Measured[] = [];
  const visit = (n: TS.Node) => {
    if (isFunctionLike(n) && n.body) {
      const { line } = sf.getLineAndCharacterOfPosition(n.getStart());
      found.push({
        key: `${file} ${nameOf(n)}`,
        at: `${file}:${line + 1} ${nameOf(n)}`,
        lines: bodyLength(sf, n.body),
      });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/**
 * Boolean parameters beside others (`f(x, true)`): flag arguments, whose `true` says nothing at
 * the call. A function of one boolean (a setter, `setTokenExpiring(expiring)`) takes the value itself.
 */
function booleanParameters(file: string): string[] {
  const sf = parse(file);
  const found: string[] = [];
  const visit = (n: TS.Node) => {
    if (isFunctionLike(n) && n.parameters.length > 1) {
      for (const p of n.parameters) {
        const flag =
          p.type?.kind === ts.SyntaxKind.BooleanKeyword ||
          p.initializer?.kind === ts.SyntaxKind.TrueKeyword ||
          p.initializer?.kind === ts.SyntaxKind.FalseKeyword;
        if (flag) {
          const { line } = sf.getLineAndCharacterOfPosition(p.getStart());
          found.push(`${file}:${line + 1} ${nameOf(n)}(${p.getText()})`);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('code shape', () => {
  const files = sources('src');
  let measured: Measured[] | undefined;
  const measureAll = () => {
    measured ??= files.flatMap(functionLengths);
    return measured;
  };

  it('finds the sources', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`no function is longer than ${MAX_FUNCTION_LINES} lines of code (tables aside)`, () => {
    const over = measureAll().filter((m) => {
      const ceiling = LONG_FUNCTIONS_LEFT.get(m.key);
      return m.lines > (ceiling ?? MAX_FUNCTION_LINES);
    });
    expect(over.map((m) => `${m.at} (${m.lines} lines)`)).toEqual([]);
  });

  it('the list of long functions left only shrinks', () => {
    const longest = new Map<string, number>();
    for (const m of measureAll()) longest.set(m.key, Math.max(m.lines, longest.get(m.key) ?? 0));
    const notNeeded = [...LONG_FUNCTIONS_LEFT.keys()].filter(
      (key) => (longest.get(key) ?? 0) <= MAX_FUNCTION_LINES,
    );
    expect(notNeeded).toEqual([]);
  });

  it('no function takes a boolean beside other parameters (a named option says what true means)', () => {
    expect(files.flatMap(booleanParameters)).toEqual([]);
  });

  it('the checks can fail', () => {
    const probe = path.join('test', 'fixtures', 'code-shape-probe.ts');
    const long = functionLengths(probe).filter((m) => m.lines > MAX_FUNCTION_LINES);
    expect(long.map((m) => `${m.at} (${m.lines})`)).toEqual([`${probe}:8 tooLong (61)`]);
    expect(booleanParameters(probe)).toEqual([
      `${probe}:3 flagged(quick: boolean)`,
      `${probe}:6 defaulted(quick = false)`,
    ]);
  });
});
