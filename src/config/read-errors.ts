/**
 * Error texts for reading a config file (the exporter's config or the web config). They give
 * a position and a reason only: YAML's own messages quote the source, and a config file can
 * hold a token, a password hash or a key.
 */

/** Why a file could not be read, without its content. */
export function fileErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return code ?? (err instanceof Error ? err.name : 'unknown error');
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
