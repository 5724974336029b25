/**
 * Error texts and steps shared by the config and web-config loaders: a position and a reason only,
 * since YAML's own messages quote the source, which may hold a token or a key.
 */
import { type Document, isMap, parseDocument } from 'yaml';
import { FileReadError, formatBytes } from '../util/read-file.ts';

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
function yamlToValue(
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
function yamlErrorText(err: {
  message: string;
  linePos?: [{ line: number; col: number }, ...unknown[]];
}): string {
  const message = err.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? err.message;
  const pos = err.linePos?.[0];
  return pos === undefined
    ? `YAML syntax error: ${message}`
    : `line ${pos.line}, column ${pos.col}: ${message}`;
}

/**
 * A YAML document as plain values, or why it cannot be one: over `maxBytes`, a syntax error,
 * empty, not a mapping at the top, or an alias bomb. `say` words the messages for the document.
 */
export function parseYamlMapping(
  text: string,
  limits: { readonly maxBytes: number; readonly maxAliases: number },
  say: { readonly what: string; readonly empty: string; readonly notMapping: string },
): { readonly value: unknown } | { readonly issues: string[] } {
  // Characters never outnumber UTF-8 bytes: text over the cap in characters is over it in bytes.
  if (text.length > limits.maxBytes)
    return { issues: [`${say.what} is larger than the limit of ${formatBytes(limits.maxBytes)}`] };
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) return { issues: doc.errors.map(yamlErrorText) };
  if (doc.contents === null) return { issues: [say.empty] };
  if (!isMap(doc.contents)) return { issues: [say.notMapping] };
  const tree = yamlToValue(doc, limits.maxAliases);
  return 'issue' in tree ? { issues: [tree.issue] } : tree;
}
