import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import {
  BasicAuth,
  type BasicAuthOptions,
  bcryptCost,
  dummyHashFor,
  parseBasic,
} from '../../../src/server/web-config/auth.ts';
import type { Comparison } from '../../../src/server/web-config/bcrypt-pool.ts';

const HASH = '$2y$12$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * An injected hasher whose comparisons finish only when the test says so: "the password is
 * right" when it equals "right". It records each comparison and how many ran side by side.
 */
function gatedHasher() {
  const waiting: Array<{ password: string; hash: string; finish: () => void }> = [];
  let running = 0;
  let mostAtOnce = 0;
  const compare = (password: string, hash: string) =>
    new Promise<Comparison>((resolve) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      waiting.push({
        password,
        hash,
        finish: () => {
          running--;
          resolve({ ok: password === 'right', ms: 0 });
        },
      });
    });
  return {
    compare,
    waiting,
    mostAtOnce: () => mostAtOnce,
    /** Finishes comparisons one by one, letting queued ones start, until none is left. */
    async drain() {
      for (;;) {
        await flush();
        const next = waiting.shift();
        if (next === undefined) return;
        next.finish();
      }
    },
  };
}

/** Lets promise callbacks run (no timers involved). */
async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function setup(opts: BasicAuthOptions = {}) {
  const hasher = gatedHasher();
  const auth = new BasicAuth({ compare: hasher.compare, ...opts });
  const table = { users: new Map([['prometheus', HASH]]), dummyHash: dummyHashFor([HASH]) };
  return { hasher, auth, table };
}

describe('basic auth parsing', () => {
  it('reads user and password, the password may hold colons', () => {
    expect(parseBasic(basic('u', 'p:w'))).toEqual({ user: 'u', password: 'p:w' });
    expect(parseBasic('Bearer x')).toBeUndefined();
    expect(parseBasic(undefined)).toBeUndefined();
  });
});

describe('the dummy hash for unknown users', () => {
  it('has the cost of the costliest configured user', () => {
    const h10 = bcrypt.hashSync('a', 4).replace('$04$', '$10$');
    expect(bcryptCost(dummyHashFor([h10, HASH, h10]))).toBe(12);
    expect(bcryptCost(dummyHashFor([h10]))).toBe(10);
    expect(bcryptCost(dummyHashFor([]))).toBe(10);
    // On 0.3.0 the dummy was always cost 10: a cost-12 user was 4x slower to refuse than an unknown one.
    expect(dummyHashFor([HASH])).toMatch(/^\$2b\$12\$[./A-Za-z0-9]{53}$/);
  });

  it('is checked for an unknown user, and the known user against its own hash', async () => {
    const { auth, table, hasher } = setup();
    const pending = [
      auth.check({ authorization: basic('nobody', 'x'), client: 'a' }, table),
      auth.check({ authorization: basic('prometheus', 'x'), client: 'b' }, table),
    ];
    await flush();
    expect(hasher.waiting.map((w) => [w.password, w.hash])).toEqual([
      ['x', table.dummyHash],
      ['x', HASH],
    ]);
    expect(bcryptCost(table.dummyHash)).toBe(12);
    await hasher.drain();
    expect(await Promise.all(pending)).toEqual(['denied', 'denied']);
  });

  it('does the full bcrypt work of its cost with bcryptjs', async () => {
    const dummy = dummyHashFor([bcrypt.hashSync('a', 5)]);
    expect(bcryptCost(dummy)).toBe(5);
    // A well-formed hash of nothing: compare runs and says no, it does not throw or return early.
    expect(await bcrypt.compare('a', dummy)).toBe(false);
  });
});

describe('users of different bcrypt costs', () => {
  it('pads a check of a cheaper hash by its own time scaled to the costliest, whatever its outcome', async () => {
    const cheap = bcrypt.hashSync('a', 4).replace('$04$', '$10$');
    const table = {
      users: new Map([
        ['old', cheap],
        ['new', HASH],
      ]),
      dummyHash: dummyHashFor([cheap, HASH]),
    };
    const slept: number[] = [];
    const auth = new BasicAuth({
      compare: async (password) => ({ ok: password === 'right', ms: 50 }),
      sleep: async (ms) => slept.push(ms),
    });
    const check = (user: string, password: string) =>
      auth.check({ authorization: basic(user, password), client: 'c' }, table);
    // Cost 10 against 12: 4x the work, so 3x the hash's own time more.
    expect(await check('old', 'wrong')).toBe('denied');
    expect(await check('old', 'right')).toBe('ok');
    expect(slept).toEqual([150, 150]);
    // The costliest user and unknown users (the dummy hash has the highest cost) wait for nothing.
    expect(await check('new', 'wrong')).toBe('denied');
    expect(await check('nobody', 'right')).toBe('denied');
    expect(slept).toEqual([150, 150]);
  });

  it('refuses a check whose comparison failed, and says why', async () => {
    const failures: unknown[] = [];
    const auth = new BasicAuth({
      compare: () => Promise.reject(new Error('bcrypt thread exited with code 1')),
      onFailure: (err) => failures.push(err),
    });
    const table = { users: new Map([['prometheus', HASH]]), dummyHash: dummyHashFor([HASH]) };
    expect(await auth.check({ authorization: basic('prometheus', 'right'), client: 'c' }, table)).toBe(
      'denied',
    );
    expect(failures).toEqual([new Error('bcrypt thread exited with code 1')]);
    expect(auth.pending).toBe(0);
  });

  it('keeps the check in the queue while it is padded', async () => {
    let wake = () => {};
    const cheap = bcrypt.hashSync('a', 4).replace('$04$', '$10$');
    const table = {
      users: new Map([
        ['old', cheap],
        ['new', HASH],
      ]),
      dummyHash: dummyHashFor([cheap, HASH]),
    };
    const auth = new BasicAuth({
      compare: async () => ({ ok: false, ms: 10 }),
      sleep: () => new Promise<void>((r) => (wake = r)),
    });
    const padded = auth.check({ authorization: basic('old', 'x'), client: 'c' }, table);
    await flush();
    expect(auth.pending).toBe(1);
    wake();
    expect(await padded).toBe('denied');
    expect(auth.pending).toBe(0);
  });
});

describe('bounded bcrypt work', () => {
  it('answers a cached valid credential at once while a flood of wrong passwords fills the queue', async () => {
    const { auth, table, hasher } = setup();
    const good = { authorization: basic('prometheus', 'right'), client: 'prometheus-host' };
    const first = auth.check(good, table);
    await hasher.drain();
    expect(await first).toBe('ok');

    // 500 distinct wrong passwords from 250 addresses, two each.
    const flood = Array.from({ length: 500 }, (_, i) =>
      auth.check({ authorization: basic('prometheus', `wrong-${i}`), client: `10.0.${i >> 1}.1` }, table),
    );
    await flush();
    expect(auth.pending).toBe(16);
    // Handed to the pool, which runs as many as it has threads.
    expect(hasher.waiting).toHaveLength(16);
    // The scraper is answered from the cache: no place in the queue, no comparison.
    expect(await auth.check(good, table)).toBe('ok');
    expect(hasher.waiting).toHaveLength(16);

    await hasher.drain();
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o === 'denied')).toHaveLength(16);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(484);
    expect(hasher.mostAtOnce()).toBe(16);
    expect(auth.pending).toBe(0);
  });

  it('gives one client address at most 2 places, leaving room for the others', async () => {
    const { auth, table, hasher } = setup();
    const from = (client: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        auth.check({ authorization: basic('prometheus', `w${i}`), client }, table),
      );
    const attacker = from('192.0.2.1', 10);
    const other = from('192.0.2.2', 1);
    await flush();
    expect(auth.pending).toBe(3);
    await hasher.drain();
    expect(await Promise.all(attacker)).toEqual(['denied', 'denied', ...Array(8).fill('busy')]);
    expect(await Promise.all(other)).toEqual(['denied']);
    // Places are given back: the same address is checked again.
    const again = auth.check({ authorization: basic('prometheus', 'right'), client: '192.0.2.1' }, table);
    await hasher.drain();
    expect(await again).toBe('ok');
  });

  it('keeps valid credentials cached whatever wrong ones come, and forgets them only for other valid ones', async () => {
    const { auth, table, hasher } = setup();
    const good = { authorization: basic('prometheus', 'right'), client: 'p' };
    const first = auth.check(good, table);
    await hasher.drain();
    expect(await first).toBe('ok');
    // 1,120 wrong passwords: on 0.3.0 every result was cached and the cache was cleared at 1,024 entries.
    for (let round = 0; round < 70; round++) {
      const wrong = Array.from({ length: 16 }, (_, i) =>
        auth.check({ authorization: basic('prometheus', `wrong-${round}-${i}`), client: `c${i}` }, table),
      );
      await hasher.drain();
      await Promise.all(wrong);
    }
    const compared = hasher.waiting.length;
    expect(await auth.check(good, table)).toBe('ok');
    expect(hasher.waiting.length).toBe(compared);
  });

  it('does not let a cached success outlive its user', async () => {
    const { auth, table, hasher } = setup();
    const good = { authorization: basic('prometheus', 'right'), client: 'p' };
    const first = auth.check(good, table);
    await hasher.drain();
    expect(await first).toBe('ok');
    const gone = { users: new Map<string, string>(), dummyHash: table.dummyHash };
    const after = auth.check(good, gone);
    await hasher.drain();
    expect(await after).toBe('denied');
  });

  it('refuses a missing or malformed header without bcrypt', async () => {
    const { auth, table, hasher } = setup();
    expect(await auth.check({ authorization: undefined, client: 'x' }, table)).toBe('denied');
    expect(await auth.check({ authorization: 'Basic !!!', client: 'x' }, table)).toBe('denied');
    expect(hasher.waiting).toHaveLength(0);
  });
});
