/**
 * HTTP basic authentication against bcrypt hashes. bcrypt is slow on purpose, so results are
 * cached (keyed by a hash of user, stored hash and password, never the password itself) and
 * comparisons run one at a time, as exporter-toolkit does: Prometheus sends the same
 * credentials on every scrape and pays the cost once.
 */
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';

// A bcrypt hash of a random string, compared for unknown users so that timing does not tell
// whether a user exists.
const DUMMY_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.pnmFTyjx4ZP7hGYeiSHz7wnMbYFW';
const CACHE_LIMIT = 1024;

/** Checks `Authorization` headers against a user table. */
export interface BasicAuth {
  /** True when the header carries a known user and the matching password. */
  check(authorization: string | undefined, users: ReadonlyMap<string, string>): Promise<boolean>;
}

/** Parses `Basic base64(user:password)`; undefined for anything else. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/** Creates a checker with its own cache; `compare` is injectable for tests. */
export function createBasicAuth(
  compare: (password: string, hash: string) => Promise<boolean> = bcrypt.compare,
): BasicAuth {
  const cache = new Map<string, boolean>();
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = (password: string, hash: string): Promise<boolean> => {
    const run = queue.then(() => compare(password, hash).catch(() => false));
    queue = run;
    return run;
  };
  return {
    async check(authorization, users) {
      const creds = parseBasic(authorization);
      if (!creds) return false;
      const stored = users.get(creds.user);
      const hash = stored ?? DUMMY_HASH;
      const key = createHash('sha256').update(`${creds.user}\0${hash}\0${creds.password}`).digest('base64');
      let ok = cache.get(key);
      if (ok === undefined) {
        ok = (await serialized(creds.password, hash)) && stored !== undefined;
        // A full cache starts again rather than growing: a flood of wrong passwords costs bcrypt time, not memory.
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(key, ok);
      }
      return ok && stored !== undefined;
    },
  };
}
