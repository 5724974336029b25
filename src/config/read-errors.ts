/**
 * Error texts and steps shared by the config and web-config loaders: a position and a reason only,
 * since YAML's own messages quote the source, which may hold a token or a key.
 */
import type { Document } from 'yaml';
import { FileReadError } from '../util/read-file.ts';

/** Why a file could not be read, without its content. */
export function fileErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return code ?? (err instanceof Error ? err.name : 'unknown error');
}

/** Why a file could not be read: the reader's refusal (kind, size, deadline) or the fs error code. */
export function readErrorText(err: unknown): string {
  return err instanceof FileReadError ? err.problem : fileErrorText(err);
}

/** The document as plain values; an alias bomb (over `maxAliases` uses) is an issue, not a crash. */
export function yamlToValue(
  doc: Document,
  maxAliases: number,
): { readonly value: unknown } | { readonly issue: string } {
  try {
    return { value: doc.toJS({ maxAliasCount: maxAliases }) };
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    return { issue: `YAML aliases repeat too much: more than ${maxAliases} alias uses (an alias bomb?)` };
  }
}

/** `line 3, column 5: <what is wrong>`, without the source excerpt yaml adds. */
export function yamlErrorText(err: {
  message: string;
  linePos?: [{ line: number; col: number }, ...unknown[]];
}): string {
  const message = err.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? err.message;
  const pos = err.linePos?.[0];
  return pos === undefined
    ? `YAML syntax error: ${message}`
    : `line ${pos.line}, column ${pos.col}: ${message}`;
}
