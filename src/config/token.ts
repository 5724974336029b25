import {
  type DeadlineTimers,
  FileReadError,
  type OpenFile,
  RegularFileReader,
  type StatFile,
} from '../util/read-file.ts';
import { maskCredentialLike } from '../util/redact.ts';

/** Supplies the current bearer token. */
export interface TokenProvider {
  /** The token to send now; rejects with an error naming the file (never its content) if unavailable. */
  get(): Promise<string>;
  /** Reads the file again even if it looks unchanged (after a 401); an inline token stays as it is. */
  renew(): Promise<string>;
  /** Why the token file failed at the last read while an older token is used; else undefined. */
  readonly fileError: string | undefined;
}

/** Largest token file read: a JWT is a few KiB; anything far larger is not a token. */
export const TOKEN_FILE_MAX_BYTES = 64 * 1024;

/** How long a read of the token file may take before it counts as failed (a hung mount, say). */
export const TOKEN_FILE_TIMEOUT_MS = 5_000;

/**
 * What makes a token unusable: whitespace or control characters inside it would be sent in
 * the Authorization header and fail every request, so they are a config error, found at load
 * time and by check-config. The message never quotes the token.
 */
export function tokenProblem(token: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  const bad = /[\s\u0000-\u001f\u007f]/.exec(token);
  if (!bad) return undefined;
  const what = /\s/.test(bad[0]) ? 'whitespace' : 'a control character';
  return `the token contains ${what} at position ${bad.index + 1}; a token is one word`;
}

/** Whom a {@link TokenFile} tells of file errors, and the reader's timers and fs calls (tests inject them). */
interface TokenFileDeps {
  readonly timers?: DeadlineTimers;
  readonly open?: OpenFile;
  readonly stat?: StatFile;
  /** Hears when the file becomes unreadable (with the reason) or readable again (undefined). */
  readonly onFileError?: (reason: string | undefined) => void;
}

/** An inline token from the config: returned as is, renewed to itself. */
export class InlineToken implements TokenProvider {
  readonly #value: string;
  readonly fileError = undefined;

  constructor(value: string) {
    this.#value = value;
  }

  /** The token. */
  async get(): Promise<string> {
    return this.#value;
  }

  /** The same token: there is nothing to read again. */
  async renew(): Promise<string> {
    return this.#value;
  }
}

/**
 * A token read from a file, again whenever its modification time or size changes, so a rotated
 * secret takes effect without a restart. A file that turns unreadable, empty, too large, slow or
 * not a regular file keeps the last token in use and sets {@link TokenFile.fileError}.
 */
export class TokenFile implements TokenProvider {
  readonly #path: string;
  readonly #reader: RegularFileReader;
  readonly #onFileError: ((reason: string | undefined) => void) | undefined;
  #cached: { version: string; token: string } | undefined;
  #fileError: string | undefined;

  constructor(path: string, { onFileError, ...io }: TokenFileDeps = {}) {
    this.#path = path;
    // Never a plain readFile: a FIFO in the file's place would block open() for good. One reader
    // for all requests: a read past its deadline is not restarted, or each would hold a libuv thread.
    this.#reader = new RegularFileReader({
      maxBytes: TOKEN_FILE_MAX_BYTES,
      timeoutMs: TOKEN_FILE_TIMEOUT_MS,
      ...io,
    });
    this.#onFileError = onFileError;
  }

  /** The token to send now; rejects with an error naming the file (never its content) if unavailable. */
  get(): Promise<string> {
    return this.#read({ force: false });
  }

  /** Reads the file again even if it looks unchanged (after a 401). */
  renew(): Promise<string> {
    return this.#read({ force: true });
  }

  /** Why the file could not be read at the last attempt, while an older token is still used. */
  get fileError(): string | undefined {
    return this.#fileError;
  }

  #setError(reason: string | undefined): void {
    if (reason === this.#fileError) return;
    this.#fileError = reason;
    this.#onFileError?.(reason);
  }

  /** The token: the cached one while the file looks unchanged (unless `force`), else read anew. */
  async #read({ force }: { readonly force: boolean }): Promise<string> {
    const path = this.#path;
    let version: string;
    let text: string | undefined;
    try {
      const info = await this.#reader.stat(path);
      version = `${info.mtimeMs}:${info.size}`;
      const cached = this.#cached;
      if (!force && cached?.version === version) {
        this.#setError(undefined);
        return cached.token;
      }
      text = (await this.#reader.read(path)).toString('utf8');
    } catch (err) {
      // The path is shown masked where it looks like a credential: a token pasted as the path.
      return this.#keepOrThrow(maskCredentialLike(`cannot read token file ${path}: ${describeFsError(err)}`));
    }
    const token = text.trim();
    const problem = token === '' ? 'is empty' : tokenProblem(token);
    if (problem !== undefined) return this.#keepOrThrow(maskCredentialLike(`token file ${path}: ${problem}`));
    this.#setError(undefined);
    this.#cached = { version, token };
    return token;
  }

  /** After a failed read: the last good token with `reason` noted, or, with none yet, `reason` thrown. */
  #keepOrThrow(reason: string): string {
    const cached = this.#cached;
    if (!cached) throw new Error(reason);
    this.#setError(reason);
    return cached.token;
  }
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
  // The reader's own refusals name the kind of file, the limit or the deadline, never the content.
  if (err instanceof FileReadError) return err.problem;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  // Only the code: an fs error message is safe, but an injected one's might quote the content.
  return code ?? 'read failed';
}
