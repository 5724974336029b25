/** A position in the parsed YAML tree: mapping keys and sequence indexes. */
export type Path = ReadonlyArray<string | number>;

/** A problem found while expanding `${VAR}` references, at the path of the string that held it. */
export interface PathIssue {
  path: Path;
  message: string;
}

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// `$$`, a complete `${...}`, or a `${` that is never closed.
const REFERENCE = /\$\$|\$\{([^}]*)\}|\$\{/g;

function expandString(
  text: string,
  env: NodeJS.ProcessEnv,
  at: { readonly path: Path; readonly issues: PathIssue[] },
): string {
  const { path, issues } = at;
  return text.replace(REFERENCE, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    if (name === undefined) {
      issues.push({ path, message: 'unterminated "${" (write "$$" for a literal "$")' });
      return match;
    }
    if (!VAR_NAME.test(name)) {
      issues.push({ path, message: `invalid environment variable name "${name}"` });
      return match;
    }
    const value = env[name];
    if (value === undefined) {
      issues.push({ path, message: `environment variable ${name} is not set` });
      return match;
    }
    return value;
  });
}

/**
 * Replaces `${VAR}` with the variable's value and `$$` with `$` in every string of a parsed YAML
 * tree. Runs after parsing so that each problem can be reported at its config path, and so that a
 * variable's value can never change the document's structure.
 */
export function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  path: Path = [],
): { value: unknown; issues: PathIssue[] } {
  const issues: PathIssue[] = [];
  const walk = (node: unknown, at: Path): unknown => {
    if (typeof node === 'string') return expandString(node, env, { path: at, issues });
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...at, i]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...at, key])]));
    }
    return node;
  };
  return { value: walk(value, path), issues };
}
