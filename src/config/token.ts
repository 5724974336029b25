import { readFile as fsReadFile, stat as fsStat } from 'node:fs/promises';
import type { SecretSource } from './schema.ts';

/** Supplies the current bearer token. */
export interface TokenProvider {
  /** The token to send now; rejects with an error naming the file (never its content) if unavailable. */
  get(): Promise<string>;
}

/** File access used by {@link createTokenProvider}; injectable for tests. */
export interface TokenProviderDeps {
  readFile?: (path: string) => Promise<string>;
  stat?: (path: string) => Promise<{ mtimeMs: number; size: number }>;
}

/**
 * Creates a provider for `source`. An inline token is returned as is. A token file is read on first
 * use and read again whenever its modification time or size changes, so a rotated secret (e.g. a
 * Kubernetes secret volume) takes effect on the next request without a restart.
 */
export function createTokenProvider(source: SecretSource, deps: TokenProviderDeps = {}): TokenProvider {
  if (source.kind === 'inline') {
    const value = source.value;
    return { get: async () => value };
  }
  const path = source.path;
  const readFile = deps.readFile ?? ((p: string) => fsReadFile(p, 'utf8'));
  const stat = deps.stat ?? fsStat;
  let cached: { version: string; token: string } | undefined;

  return {
    async get() {
      let version: string;
      let text: string | undefined;
      try {
        const info = await stat(path);
        version = `${info.mtimeMs}:${info.size}`;
        if (cached?.version === version) return cached.token;
        text = await readFile(path);
      } catch (err) {
        throw new Error(`cannot read token file ${path}: ${describeFsError(err)}`);
      }
      const token = text.trim();
      if (token === '') throw new Error(`token file ${path} is empty`);
      cached = { version, token };
      return token;
    },
  };
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  // Only the code: an fs error message is safe, but an injected reader's might quote the content.
  return code ?? 'read failed';
}
