import type { z } from 'zod';
import { maskCredentialLike } from '../util/redact.ts';
import { nearest } from '../util/suggest.ts';
import type { Path, PathIssue } from './env.ts';
import { configReferenceRows } from './reference.ts';

type Issue = z.core.$ZodIssue;

/** Input that cannot be used: the message lists every problem, each masked like a credential. */
export class IssueListError extends Error {
  /** Every problem as `path: message`, after `prefix`. */
  readonly issues: string[];

  constructor(heading: string, issues: readonly string[], prefix = '') {
    // Issues may quote a value typed in, maybe a token in the wrong field: masked for every output.
    const masked = issues.map(maskCredentialLike);
    super(`${heading}:\n  ${masked.join('\n  ')}`);
    this.issues = masked.map((i) => prefix + i);
  }
}

/** Formats a path the way the YAML reads: `windows[2].timezone`, `discovery.include.sites[0]`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** Formats an issue as `path: message`, or just the message for the whole document. */
export function formatIssue(issue: PathIssue): string {
  const path = formatPath(issue.path);
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
};

/** An issue as the error map gets it, of one code. */
type RawIssue<C extends Issue['code']> = Extract<Parameters<z.core.$ZodErrorMap>[0], { code: C }>;

/**
 * Error map for parsing config: shorter, YAML-flavoured messages than zod's defaults. It names the
 * type of a wrong value but never the value itself, which might be a secret in the wrong place.
 */
export const configErrorMap: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      return wrongType(iss);
    case 'too_small':
      return tooSmall(iss);
    case 'too_big':
      return tooBig(iss);
    case 'invalid_value':
      return `must be one of ${iss.values.map(String).join(', ')}`;
    default:
      return undefined;
  }
};

function wrongType(iss: RawIssue<'invalid_type'>): string {
  if (iss.input === undefined) return 'is required';
  if (iss.expected === 'int' && typeof iss.input === 'number') return 'must be an integer';
  // YAML's .nan and .inf are numbers that zod refuses as such.
  if (iss.expected === 'number' && typeof iss.input === 'number')
    return `must be a finite number, got ${yamlNumber(iss.input)}`;
  return `expected ${EXPECTED[iss.expected] ?? iss.expected}, got ${typeName(iss.input)}`;
}

/** A non-finite number as YAML spells it. */
function yamlNumber(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  return value > 0 ? '.inf' : '-.inf';
}

function tooSmall(iss: RawIssue<'too_small'>): string {
  if (iss.origin === 'array') return `must have at least ${iss.minimum} item${iss.minimum === 1 ? '' : 's'}`;
  // A text's length, not its value: "must be at least 1" reads as a number.
  if (iss.origin === 'string')
    return iss.minimum === 1 ? 'must not be empty' : `must have at least ${iss.minimum} characters`;
  return iss.inclusive === false ? `must be greater than ${iss.minimum}` : `must be at least ${iss.minimum}`;
}

function tooBig(iss: RawIssue<'too_big'>): string {
  if (iss.origin === 'array') return `must have at most ${iss.maximum} items`;
  if (iss.origin === 'string') return `must have at most ${iss.maximum} characters`;
  return iss.inclusive === false ? `must be less than ${iss.maximum}` : `must be at most ${iss.maximum}`;
}

const isWrongShape = (branch: Issue[]): boolean =>
  branch.length > 0 && branch.every((i) => i.code === 'invalid_type' && i.path.length === 0);

/**
 * Flattens zod issues into `path: message` items, one per unknown key and per failing union branch;
 * `keysAt` gives the keys allowed in the mapping at a path (default: the config's).
 */
export function flattenIssues(
  issues: readonly Issue[],
  prefix: Path = [],
  keysAt: (parent: Path) => readonly string[] = configKeysAt,
): PathIssue[] {
  return issues.flatMap((issue): PathIssue[] => {
    const path = [...prefix, ...(issue.path as Array<string | number>)];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: unknownKeyMessage(keysAt(path), key),
      }));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A value that is "a string or a mapping" fails both branches; report the branch it was meant for.
      const meant = issue.errors.filter((branch) => !isWrongShape(branch));
      if (meant.length === 1 && meant[0] !== undefined) return flattenIssues(meant[0], path, keysAt);
      if (meant.length === 0) {
        const expected = issue.errors.flatMap((b) =>
          b.map((i) => (i.code === 'invalid_type' ? i.expected : '')),
        );
        const names = [...new Set(expected.map((e) => EXPECTED[e] ?? e))].filter((e) => e !== '');
        return [{ path, message: `expected ${names.join(' or ')}` }];
      }
    }
    return [{ path, message: issue.message }];
  });
}

/** The config's keys in the mapping at `parent`, in any of its variants. */
function configKeysAt(parent: Path): string[] {
  const prefix = formatPath(parent).replace(/\[\d+\]/g, '[]');
  return configReferenceRows()
    .map((row) => row.path)
    .filter((path) => path.startsWith(prefix === '' ? '' : `${prefix}.`))
    .map((path) => path.slice(prefix === '' ? 0 : prefix.length + 1))
    .filter((rest) => /^[a-z_]+$/.test(rest));
}

/** `unknown key`, with the closest allowed key when the unknown one looks like a typo. */
function unknownKeyMessage(siblings: readonly string[], key: string): string {
  // A key of the same list under another `type` (week_starts on a today window) is a sibling too:
  // suggesting the key itself would read as a typo where the type is what is wrong.
  if (siblings.includes(key)) return 'not a key of this type';
  const best = nearest(key, siblings);
  return best !== undefined ? `unknown key (did you mean "${best}"?)` : 'unknown key';
}
