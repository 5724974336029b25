/**
 * House style: "option objects over boolean arguments" and, for the small functions of the
 * house, no function of src/ takes more than three parameters: where a call needs more, they go
 * into a named options object. Read with the TypeScript compiler, so that a violation names its
 * file, line and function.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_PARAMETERS = 3;

/**
 * Functions whose signature an outside API fixes, with the reason: a callback of
 * String.prototype.replace receives the match and each capture group positionally.
 */
const FIXED_BY_CALLER = new Set(['src/util/redact.ts (anonymous)']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration;

function isFunctionLike(n: ts.Node): n is FunctionLike {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isArrowFunction(n) ||
    ts.isFunctionExpression(n) ||
    ts.isConstructorDeclaration(n)
  );
}

function nameOf(n: FunctionLike): string {
  if (n.name) return n.name.getText();
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const parent = n.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return '(anonymous)';
}

/** Every function of `file` with more than {@link MAX_PARAMETERS} parameters, as `file:line name (n)`. */
function longSignatures(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (
      isFunctionLike(n) &&
      n.parameters.length > MAX_PARAMETERS &&
      !FIXED_BY_CALLER.has(`${file} ${nameOf(n)}`)
    ) {
      const { line } = sf.getLineAndCharacterOfPosition(n.getStart());
      found.push(`${file}:${line + 1} ${nameOf(n)} (${n.parameters.length})`);
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
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node) => {
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

  it('finds the sources', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`no function takes more than ${MAX_PARAMETERS} parameters (more go into an options object)`, () => {
    expect(files.flatMap(longSignatures)).toEqual([]);
  });

  it('no function takes a boolean beside other parameters (a named option says what true means)', () => {
    expect(files.flatMap(booleanParameters)).toEqual([]);
  });

  it('the checks can fail', () => {
    const probe = path.join('test', 'fixtures', 'code-shape-probe.ts');
    expect(longSignatures(probe)).toEqual([`${probe}:2 tooMany (4)`]);
    expect(booleanParameters(probe)).toEqual([
      `${probe}:3 flagged(quick: boolean)`,
      `${probe}:6 defaulted(quick = false)`,
    ]);
  });
});
