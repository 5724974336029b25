import { readFile as fsReadFile, stat as fsStat } from 'node:fs/promises';
import type { SecretSource } from './schema.ts';
import { tokenProblem } from './token-text.ts';

/** Supplies the current bearer token. */
export interface TokenProvider {
  /** The token to send now; rejects with an error naming the file (never its content) if unavailable. */
  get(): Promise<string>;
  /** Reads the file again even if it looks unchanged (after a 401); an inline token stays as it is. */
  renew(): Promise<string>;
  /**
   * Why the token file could not be read at the last attempt, while an older token is still
   * used; undefined when the file is fine (or the token is inline).
   */
  readonly fileError: string | undefined;
}

/** File access used by {@link createTokenProvider}; injectable for tests. */
export interface TokenProviderDeps {
  readFile?: (path: string) => Promise<string>;
  stat?: (path: string) => Promise<{ mtimeMs: number; size: number; mode?: number }>;
  /** Hears when the file becomes unreadable (with the reason) or readable again (undefined). */
  onFileError?: (reason: string | undefined) => void;
}

/**
 * Creates a provider for `source`. An inline token is returned as is. A token file is read on first
 * use and read again whenever its modification time or size changes, so a rotated secret (e.g. a
 * Kubernetes secret volume) takes effect on the next request without a restart. A file that later
 * disappears or turns unreadable keeps the last token in use and sets {@link TokenProvider.fileError}.
 */
export function createTokenProvider(source: SecretSource, deps: TokenProviderDeps = {}): TokenProvider {
  if (source.kind === 'inline') {
    const value = source.value;
    return { get: async () => value, renew: async () => value, fileError: undefined };
  }
  const path = source.path;
  const readFile = deps.readFile ?? ((p: string) => fsReadFile(p, 'utf8'));
  const stat = deps.stat ?? fsStat;
  let cached: { version: string; token: string } | undefined;
  let fileError: string | undefined;

  const setError = (reason: string | undefined) => {
    if (reason === fileError) return;
    fileError = reason;
    deps.onFileError?.(reason);
  };

  /** The token: the cached one while the file looks unchanged (unless `force`), else read anew. */
  async function read(how: { readonly force: boolean }): Promise<string> {
    const { force } = how;
    let version: string;
    let text: string | undefined;
    try {
      const info = await stat(path);
      version = `${info.mtimeMs}:${info.size}`;
      if (!force && cached?.version === version) {
        setError(undefined);
        return cached.token;
      }
      text = await readFile(path);
    } catch (err) {
      const reason = `cannot read token file ${path}: ${describeFsError(err)}`;
      if (cached) {
        setError(reason);
        return cached.token;
      }
      throw new Error(reason);
    }
    const token = text.trim();
    const problem = token === '' ? 'is empty' : tokenProblem(token);
    if (problem !== undefined) {
      const reason = `token file ${path}: ${problem}`;
      if (cached) {
        setError(reason);
        return cached.token;
      }
      throw new Error(reason);
    }
    setError(undefined);
    cached = { version, token };
    return token;
  }

  return {
    get: () => read({ force: false }),
    renew: () => read({ force: true }),
    get fileError() {
      return fileError;
    },
  };
}

/**
 * A warning for a token file that other users may read (group or world bits set), as ssh
 * does for private keys; undefined when the file is private or cannot be checked.
 */
export function tokenFileModeWarning(path: string, mode: number | undefined): string | undefined {
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  return `token file ${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`;
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  // Only the code: an fs error message is safe, but an injected reader's might quote the content.
  return code ?? 'read failed';
}
