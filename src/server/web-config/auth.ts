/**
 * HTTP basic authentication against bcrypt hashes. A client can send wrong passwords at will, so
 * checks run in a thread pool from a short queue with a share per client address, and a full queue
 * is answered at once. Successes alone enter a bounded LRU (keyed by a hash, never the password),
 * so a flood can neither evict Prometheus's entry nor make it wait. Every check takes as long as
 * one of the costliest hash, or timing would tell which users exist and at what cost.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BcryptPool, type Comparison } from './bcrypt-pool.ts';

/** Checks waiting or running at most, over all clients and per client address. */
const BCRYPT_QUEUE_LIMIT = 16;
const BCRYPT_PER_CLIENT_LIMIT = 2;
const SUCCESS_CACHE_LIMIT = 256;

// Salt and hash of a random string: any well-formed hash costs what real ones of its cost do.
const DUMMY_TAIL = 'CwTycUXWue0Thq9StjUM0uJ8.pnmFTyjx4ZP7hGYeiSHz7wnMbYFW';
const DEFAULT_COST = 10;

/**
 * A dummy hash with the cost of the costliest of `hashes` (10 when none), for unknown users: with
 * a cost-10 dummy a cost-12 user was told apart by a 4x faster answer.
 */
export function dummyHashFor(hashes: Iterable<string>): string {
  let cost = 0;
  for (const hash of hashes) cost = Math.max(cost, bcryptCost(hash) ?? 0);
  return `$2b$${String(cost || DEFAULT_COST).padStart(2, '0')}$${DUMMY_TAIL}`;
}

/** The cost (log2 rounds) in a bcrypt hash's prefix, e.g. 12 for `$2y$12$...`. */
export function bcryptCost(hash: string): number | undefined {
  const m = /^\$2[aby]?\$(\d\d)\$/.exec(hash);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** Parses `Basic base64(user:password)`; undefined for anything else. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/** What a request brings to the check. */
export interface Credentials {
  readonly authorization: string | undefined;
  /** The client's address, by which its share of the queue is counted. */
  readonly client: string;
}

/** The users to check against: `users` and `dummyHash` of a loaded web config. */
export interface UserTable {
  readonly users: ReadonlyMap<string, string>;
  readonly dummyHash: string;
}

/** `ok`: let it in; `denied`: 401; `busy`: the queue or the client's share is full, 429 without bcrypt. */
export type AuthOutcome = 'ok' | 'denied' | 'busy';

/** Compares a password with a bcrypt hash; says how long the hash itself took, without the wait. */
export type Hasher = (password: string, hash: string) => Promise<Comparison>;

/** Options of {@link BasicAuth}. */
export interface BasicAuthOptions {
  readonly compare?: Hasher;
  /** Pads a check of a cheaper hash; default a timer. */
  readonly sleep?: (ms: number) => Promise<unknown>;
  /** Told when a comparison failed (a bcrypt thread died); the check is refused. */
  readonly onFailure?: (err: unknown) => void;
}

/** Checks `Authorization` headers against a user table, with bounded bcrypt work. */
export class BasicAuth {
  readonly #compare: Hasher;
  readonly #sleep: (ms: number) => Promise<unknown>;
  readonly #onFailure: (err: unknown) => void;
  /** Map order is the LRU order (oldest first). */
  readonly #successes = new Map<string, true>();
  readonly #perClient = new Map<string, number>();
  #pending = 0;

  constructor(opts: BasicAuthOptions = {}) {
    // The pool starts its threads at the first comparison: none without basic auth users.
    const pool = new BcryptPool();
    this.#compare = opts.compare ?? ((password, hash) => pool.compare(password, hash));
    this.#sleep = opts.sleep ?? sleep;
    this.#onFailure = opts.onFailure ?? (() => {});
  }

  /** Checks waiting or running now. */
  get pending(): number {
    return this.#pending;
  }

  /** Whether the request carries a known user and the matching password. */
  async check(request: Credentials, table: UserTable): Promise<AuthOutcome> {
    const creds = parseBasic(request.authorization);
    if (!creds) return 'denied';
    const stored = table.users.get(creds.user);
    const hash = stored ?? table.dummyHash;
    const key = createHash('sha256').update(`${creds.user}\0${hash}\0${creds.password}`).digest('base64');
    if (stored !== undefined && this.#successes.delete(key)) {
      this.#successes.set(key, true);
      return 'ok';
    }
    if (!this.#admit(request.client)) return 'busy';
    try {
      const ok = (await this.#compareEvenly(creds.password, hash, table.dummyHash)) && stored !== undefined;
      if (ok) this.#remember(key);
      return ok ? 'ok' : 'denied';
    } finally {
      this.#release(request.client);
    }
  }

  /**
   * Pads the check to what one against `costliest` takes: the hash's own time times 2^(cost
   * difference), which follows the host's load. It keeps its place in the queue while it waits,
   * so a cheaper user is not answered 429 less often either.
   */
  async #compareEvenly(password: string, hash: string, costliest: string): Promise<boolean> {
    const result = await this.#compare(password, hash).catch((err: unknown) => {
      this.#onFailure(err);
      return { ok: false, ms: 0 };
    });
    const steps = (bcryptCost(costliest) ?? 0) - (bcryptCost(hash) ?? 0);
    if (steps > 0) await this.#sleep(result.ms * (2 ** steps - 1));
    return result.ok;
  }

  #admit(client: string): boolean {
    const mine = this.#perClient.get(client) ?? 0;
    if (this.#pending >= BCRYPT_QUEUE_LIMIT || mine >= BCRYPT_PER_CLIENT_LIMIT) return false;
    this.#pending++;
    this.#perClient.set(client, mine + 1);
    return true;
  }

  #release(client: string): void {
    this.#pending--;
    const left = (this.#perClient.get(client) ?? 1) - 1;
    if (left > 0) this.#perClient.set(client, left);
    else this.#perClient.delete(client);
  }

  #remember(key: string): void {
    this.#successes.set(key, true);
    if (this.#successes.size > SUCCESS_CACHE_LIMIT) {
      const oldest = this.#successes.keys().next().value;
      if (oldest !== undefined) this.#successes.delete(oldest);
    }
  }
}
